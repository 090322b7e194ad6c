import { describe, expect, it, afterAll, beforeAll } from "vitest";
import { randomBytes } from "node:crypto";
import { DockerSandbox, createDockerSandbox } from "../../../src/sandbox/docker/docker-sandbox.js";
import { DEFAULT_LIMITS } from "../../../src/sandbox/limits.js";
import { OWNER_LABEL } from "../../../src/sandbox/docker/owner.js";
import { docker } from "../../../src/sandbox/docker/docker-cli.js";
import { environmentsOf } from "../../../src/sandbox/environment.js";
import { silentLogger } from "../../../src/util/logger.js";
import { BASE_IMAGE, containersLabelled, testEngine, waitNoneLabelled } from "../../support/container-engine.js";

const engine = await testEngine();
const env = engine.env!;
const owner = `test-env-${randomBytes(4).toString("hex")}`;

describe.skipIf(engine.env === null)(
  `docker environments${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    let sb: DockerSandbox;
    beforeAll(async () => {
      sb = await createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), image: BASE_IMAGE, owner, env });
    });
    afterAll(async () => {
      await sb?.close();
      expect(await waitNoneLabelled(env, OWNER_LABEL, owner, 30_000)).toEqual([]);
    });
    const open = (files?: Record<string, string>) =>
      environmentsOf(sb, "test").openEnvironment({
        image: BASE_IMAGE,
        owner,
        ...(files ? { files: { dir: "/a2a-env", entries: files } } : {}),
      });

    it("the docker backend declares environments, and nothing of the host", () => {
      expect([...sb.capabilities]).toEqual(["environments", "images"]);
    });

    it("an environment starts with its files, keeps state between commands, and is isolated as the SWE-bench container always was", async () => {
      const e = await open({ "a.txt": "from the spec\n" });
      try {
        const first = await e.exec(["/bin/sh", "-c", "cat /a2a-env/a.txt; echo kept > /a2a-env/state; echo err >&2"], {
          timeoutMs: 20_000,
        });
        expect(first).toMatchObject({ exitCode: 0, timedOut: false, isCanceled: false });
        // Both streams are kept; their relative order is arrival order at the client (merge with 2>&1 inside for exact order).
        expect(first.output.split("\n").sort()).toEqual(["", "err", "from the spec"]);
        const second = await e.exec(["cat", "/a2a-env/state"], { timeoutMs: 20_000 });
        expect(second.output).toBe("kept\n");
        // No interface beyond loopback, no effective capability, no_new_privs.
        const inside = await e.exec(
          ["/bin/sh", "-c", "ls /sys/class/net; grep -E '^(CapEff|NoNewPrivs)' /proc/self/status"],
          { timeoutMs: 20_000 },
        );
        expect(inside.output).toMatch(/^lo\nCapEff:\s+0000000000000000\nNoNewPrivs:\s+1\n$/);
        const cfg = await docker(["inspect", "--format", "{{json .HostConfig}}", e.id], { env });
        const host = JSON.parse(cfg.stdout) as Record<string, unknown>;
        expect(host).toMatchObject({
          NetworkMode: "none",
          CapDrop: ["ALL"],
          SecurityOpt: ["no-new-privileges"],
          Memory: DEFAULT_LIMITS.memoryBytes,
          PidsLimit: DEFAULT_LIMITS.maxProcesses + 32,
          NanoCpus: 1e9,
        });
        expect(host["Binds"] ?? []).toEqual([]);
      } finally {
        await e.close();
      }
      expect(await containersLabelled(env, OWNER_LABEL, owner)).toEqual([]);
    }, 60_000);

    it("files go in and out without a shell seeing their path or content", async () => {
      const e = await open();
      try {
        const path = "/tmp/a b $(touch pwned);touch pwned2";
        const content = `it's "quoted" $(touch pwned3)\n`;
        await e.writeFile(path, content);
        expect(await e.readFile(path)).toBe(content);
        const ls = await e.exec(["/bin/sh", "-c", "cd /tmp && ls; cd / && ls pwned* 2>/dev/null; true"], {
          timeoutMs: 20_000,
        });
        expect(ls.output).toBe("a b $(touch pwned);touch pwned2\n");
        await expect(e.readFile("/tmp/absent")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
        expect(await e.backendProblem()).toBeNull();
      } finally {
        await e.close();
      }
    }, 60_000);

    it("a command's timeout ends the environment: the container is gone and later commands are refused as the participant's time limit", async () => {
      const e = await open();
      const t = performance.now();
      // The command would sleep ten minutes: timedOut is the proof; the bound leaves a busy machine room.
      const o = await e.exec(["sleep", "600"], { timeoutMs: 500 });
      expect(o).toMatchObject({ timedOut: true, exitCode: null, isCanceled: false });
      expect(performance.now() - t).toBeLessThan(30_000);
      const after = await e.exec(["true"], { timeoutMs: 5000 });
      expect(after.infraError).toBeUndefined();
      expect(after.limitExceeded).toMatch(/time limit: a command did not end/);
      expect(await e.limitProblem!()).toMatch(/time limit: a command did not end/);
      await expect(e.readFile("/etc/hostname")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
      expect(await e.backendProblem()).toBeNull();
      await e.close();
      expect(await waitNoneLabelled(env, OWNER_LABEL, owner, 30_000)).toEqual([]);
    }, 60_000);

    it("an abort ends it the same way; closing the sandbox removes environments left open", async () => {
      const e = await open();
      const ac = new AbortController();
      const pending = e.exec(["sleep", "600"], { timeoutMs: 600_000, signal: ac.signal });
      await new Promise((r) => setTimeout(r, 500));
      ac.abort();
      expect(await pending).toMatchObject({ isCanceled: true, exitCode: null });
      expect(await waitNoneLabelled(env, OWNER_LABEL, owner, 30_000)).toEqual([]);
      const left = await open();
      expect(await containersLabelled(env, OWNER_LABEL, owner)).toHaveLength(1);
      // Another sandbox's environment left open when that sandbox closes: removed with it.
      const other = await createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), owner, env });
      const lost = await environmentsOf(other, "test").openEnvironment({ image: BASE_IMAGE, owner });
      await other.close();
      const after = await lost.exec(["true"], { timeoutMs: 5000 });
      expect(after.exitCode).not.toBe(0);
      await e.close();
      await left.close();
    }, 60_000);
  },
);
