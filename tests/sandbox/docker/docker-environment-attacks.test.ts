/**
 * The participant's side of an environment (its code runs in there, as the image's user): what it can do to
 * the environment must stay inside it, end within the limits, and never hang or void the harness's calls.
 */
import { describe, expect, it, afterAll, beforeAll } from "vitest";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { DockerSandbox, createDockerSandbox } from "../../../src/sandbox/docker/docker-sandbox.js";
import { READ_FILE_TIMEOUT_MS } from "../../../src/sandbox/docker/docker-environment.js";
import { DEFAULT_LIMITS } from "../../../src/sandbox/limits.js";
import { OWNER_LABEL } from "../../../src/sandbox/docker/owner.js";
import { docker } from "../../../src/sandbox/docker/docker-cli.js";
import { environmentsOf, type Environment } from "../../../src/sandbox/environment.js";
import { silentLogger } from "../../../src/util/logger.js";
import { shellEnvironment } from "../../../src/interactive/shell-environment.js";
import { BASE_IMAGE, containersLabelled, testEngine, waitNoneLabelled } from "../../support/container-engine.js";

const engine = await testEngine();
const env = engine.env!;
const owner = `test-env-atk-${randomBytes(4).toString("hex")}`;
const sh = (script: string): string[] => ["/bin/sh", "-c", script];

/** Command lines of this process's children that are docker clients. */
function dockerClientsOfOurs(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
      if (ppid === process.pid && /docker/.test(cmd)) found.push(cmd);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe.skipIf(engine.env === null)(
  `docker environments under attack${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    let sb: DockerSandbox;
    beforeAll(async () => {
      sb = await createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), image: BASE_IMAGE, owner, env });
    });
    afterAll(async () => {
      await sb?.close();
      expect(await waitNoneLabelled(env, OWNER_LABEL, owner, 5000)).toEqual([]);
    });
    const open = (): Promise<Environment> =>
      environmentsOf(sb, "test").openEnvironment({
        image: BASE_IMAGE,
        owner,
        files: { dir: "/a2a-env", entries: { "step.sh": "echo harness step\n" } },
      });

    it("signals to PID 1 from inside change nothing; a background process does not hold the command open", async () => {
      const e = await open();
      try {
        const kill = await e.exec(sh("kill -9 1; kill -TERM 1; kill -INT 1; kill -HUP 1; echo sent"), {
          timeoutMs: 20_000,
        });
        expect(kill.output).toContain("sent");
        const t = performance.now();
        const bg = await e.exec(sh("sleep 60 & echo left"), { timeoutMs: 30_000 });
        expect(bg).toMatchObject({ exitCode: 0, timedOut: false, output: "left\n" });
        expect(performance.now() - t).toBeLessThan(20_000);
        const step = await e.exec(["/bin/sh", "/a2a-env/step.sh"], { timeoutMs: 20_000 });
        expect(step).toMatchObject({ exitCode: 0, output: "harness step\n" });
      } finally {
        await e.close();
      }
      expect(await containersLabelled(env, OWNER_LABEL, owner)).toEqual([]);
    }, 90_000);

    it("lines written into the keepalive's stdin from inside end nothing: later commands run", async () => {
      const e = await open();
      try {
        const wrote = await e.exec(sh("echo x > /proc/1/fd/0 && printf 'y\\nz' > /proc/1/fd/0 && echo wrote"), {
          timeoutMs: 20_000,
        });
        expect(wrote.output).toContain("wrote");
        const after = await e.exec(["/bin/sh", "/a2a-env/step.sh"], { timeoutMs: 20_000 });
        expect(after, JSON.stringify(after)).toMatchObject({ exitCode: 0 });
        expect((await docker(["inspect", "--format", "{{.State.Running}}", e.id], { env })).stdout.trim()).toBe("true");
      } finally {
        await e.close();
      }
      expect(await waitNoneLabelled(env, OWNER_LABEL, owner, 5000)).toEqual([]);
    }, 90_000);

    it("a fork bomb and a full /tmp stay inside the caps; the timeout ends the environment", async () => {
      const e = await open();
      try {
        // head's error on the stdout stream too, so that it comes before "rc=" (two streams have no order).
        const full = await e.exec(sh("{ head -c 3000000000 /dev/zero > /tmp/fill; } 2>&1; echo rc=$?"), {
          timeoutMs: 60_000,
        });
        expect(full.output).toMatch(/No space left on device[\s\S]*rc=1/);
        const t = performance.now();
        const bomb = await e.exec(["/bin/bash", "-c", "b() { b | b & }; b; sleep 60"], { timeoutMs: 3000 });
        expect(bomb).toMatchObject({ timedOut: true, exitCode: null });
        expect(performance.now() - t).toBeLessThan(30_000);
        expect(await e.exec(["true"], { timeoutMs: 5000 })).toMatchObject({
          limitExceeded: expect.stringMatching(/time limit: a command did not end/) as unknown,
        });
      } finally {
        await e.close();
      }
      expect(await waitNoneLabelled(env, OWNER_LABEL, owner, 5000)).toEqual([]);
    }, 120_000);

    it("readFile of a path the code turned into an endless file or a FIFO is refused within its limit", async () => {
      const e = await open();
      try {
        const made = await e.exec(sh("ln -s /dev/zero /tmp/zero && mkfifo /tmp/fifo && echo ok"), {
          timeoutMs: 20_000,
        });
        expect(made.output).toBe("ok\n");
        const t = performance.now();
        await expect(e.readFile("/tmp/zero")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
        await expect(e.readFile("/tmp/fifo")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
        expect(performance.now() - t).toBeLessThan(2 * READ_FILE_TIMEOUT_MS + 20_000);
      } finally {
        await e.close();
      }
    }, 120_000);

    it("`kill -STOP -1` holds its command past its limit: the environment ends and later calls say so as the participant's limit, never the backend's failure", async () => {
      const e = await open();
      try {
        // Through the episodes' wrapper: the command stops the wrapper and its `timeout` (its own shell is spared).
        const shell = shellEnvironment(e, { workdir: "/a2a-env" });
        const signal = new AbortController().signal;
        const stopped = await shell.run("kill -STOP -1; echo stopped-them", 1, signal);
        expect(stopped).toMatchObject({ exitCode: null, timedOut: true });
        expect(stopped.infraError).toBeUndefined();
        const later = await shell.run("echo again", 10, signal);
        expect(later.infraError).toBeUndefined();
        expect(later.limitExceeded).toMatch(/time limit: a command did not end/);
        // An episode that ends with `final` right after it is asked the same, and the engine is sound.
        expect(await e.limitProblem!()).toMatch(/time limit: a command did not end/);
        await expect(e.readFile("/a2a-env/step.sh")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
        expect(await e.backendProblem()).toBeNull();
      } finally {
        await e.close();
      }
      expect(await waitNoneLabelled(env, OWNER_LABEL, owner, 30_000)).toEqual([]);
    }, 120_000);

    it("an abort while the environment starts leaves no container and no client behind", async () => {
      const ac = new AbortController();
      const opening = environmentsOf(sb, "test").openEnvironment(
        { image: BASE_IMAGE, owner, files: { dir: "/a2a-env", entries: { "step.sh": "true\n" } } },
        ac.signal,
      );
      setTimeout(() => ac.abort(), 100);
      await expect(opening).rejects.toMatchObject({ code: "E_SANDBOX_UNAVAILABLE" });
      expect(await waitNoneLabelled(env, OWNER_LABEL, owner, 5000)).toEqual([]);
      expect(dockerClientsOfOurs()).toEqual([]);
    }, 60_000);
  },
);
