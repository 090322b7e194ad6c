import { describe, expect, it, afterAll } from "vitest";
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { DockerSandbox, createDockerSandbox } from "../../../src/sandbox/docker/docker-sandbox.js";
import { DEFAULT_LIMITS } from "../../../src/sandbox/limits.js";
import { OWNER_LABEL } from "../../../src/sandbox/docker/owner.js";
import { silentLogger } from "../../../src/util/logger.js";
import { BASE_IMAGE, containersLabelled, testEngine, waitNoneLabelled } from "../../support/container-engine.js";

const engine = await testEngine();
const env = engine.env!;
const owner = `test-sbx-${randomBytes(4).toString("hex")}`;

function sandbox(
  mode: "per-run" | "per-job" = "per-run",
  limits = DEFAULT_LIMITS,
  name = owner,
): Promise<DockerSandbox> {
  return createDockerSandbox({
    limits,
    logger: silentLogger(),
    concurrency: 2,
    image: BASE_IMAGE,
    mode,
    owner: name,
    env,
  });
}

describe.skipIf(engine.env === null)(
  `docker sandbox${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    const opened: DockerSandbox[] = [];
    afterAll(async () => {
      for (const s of opened) await s.close();
      expect(await waitNoneLabelled(env, OWNER_LABEL, owner, 5000)).toEqual([]);
    });

    for (const mode of ["per-run", "per-job"] as const) {
      it(`${mode}: runs python with files and stdin, reports isolation docker, as a non-root uid without network`, async () => {
        const sb = await sandbox(mode);
        opened.push(sb);
        expect(sb.isolation).toBe("docker");
        expect(sb.backend).toBe("docker");
        const code = [
          "import os, socket, sys",
          "print(open('data.txt').read().strip(), sys.stdin.read().strip(), os.getuid() != 0)",
          "try:\n  socket.create_connection(('1.1.1.1', 53), timeout=2); print('net')\nexcept OSError: print('nonet')",
          "try:\n  open('/etc/x', 'w'); print('rw-root')\nexcept OSError: print('ro-root')",
          "print(os.environ.get('A2A_X'))",
          "sys.exit(3)",
        ].join("\n");
        const o = await sb.exec({
          language: "python",
          code,
          timeoutMs: 20_000,
          files: { "data.txt": "hello" },
          stdin: "in",
          env: { A2A_X: "y" },
        });
        expect(o.infraError).toBeUndefined();
        expect(o.stdoutTail.split("\n")).toEqual(["hello in True", "nonet", "ro-root", "y", ""]);
        expect(o.exitCode).toBe(3);
        expect(o.signal).toBeNull();
        await sb.close();
      });
    }

    it("per-run: a job's leftover process is killed and cannot see the next job's files; uids differ per job", async () => {
      const sb = await sandbox();
      opened.push(sb);
      const first = await sb.exec({
        language: "bash",
        code: "id -u; (sleep 30 &) ; echo started",
        timeoutMs: 20_000,
      });
      expect(first.exitCode).toBe(0);
      const uid1 = first.stdoutTail.split("\n")[0];
      const second = await sb.exec({
        language: "python",
        code: "import os\nprint(os.getuid())\nprint(sorted({os.stat('/proc/'+p).st_uid for p in os.listdir('/proc') if p.isdigit()}))",
        timeoutMs: 20_000,
      });
      const [uid2, uids] = second.stdoutTail.split("\n");
      expect(uid2).not.toBe(uid1);
      // Only the container's main process (65534) and this job's uid own processes: the sleep is gone.
      expect(uids).toBe(`[65534, ${uid2}]`);
      await sb.close();
    });

    it("a language the image lacks is an infrastructure error, not the program's failure", async () => {
      const sb = await sandbox();
      opened.push(sb);
      const o = await sb.exec({ language: "node", code: "console.log(1)", timeoutMs: 20_000 });
      expect(o.infraError).toMatch(/the image has no \/usr\/bin\/node/);
      expect(o.exitCode).toBeNull();
      await sb.close();
    });

    it("an image missing from the engine is an infrastructure error naming it (never pulled)", async () => {
      const sb = await createDockerSandbox({
        limits: DEFAULT_LIMITS,
        logger: silentLogger(),
        image: "a2a-bench-test/absent:never",
        owner,
        env,
      });
      opened.push(sb);
      const o = await sb.exec({ language: "python", code: "print(1)", timeoutMs: 20_000 });
      expect(o.infraError).toMatch(/a2a-bench-test\/absent:never.*must be in engine \S+/s);
      expect(o.infraError).toContain(`engine ${process.env["DOCKER_HOST"] ?? ""}`);
      await sb.close();
    });

    it("per-run: a container that died under the sandbox is replaced by the next job", async () => {
      const replaceOwner = `${owner}-replace`;
      const sb = await sandbox("per-run", DEFAULT_LIMITS, replaceOwner);
      opened.push(sb);
      expect((await sb.exec({ language: "bash", code: "echo one", timeoutMs: 20_000 })).stdoutTail).toBe("one\n");
      const [first] = await containersLabelled(env, OWNER_LABEL, replaceOwner);
      const { docker } = await import("../../../src/sandbox/docker/docker-cli.js");
      await docker(["rm", "-f", first!], { env });
      await waitNoneLabelled(env, OWNER_LABEL, replaceOwner, 30_000);
      await new Promise((r) => setTimeout(r, 300)); // the attached client notices
      const again = await sb.exec({ language: "bash", code: "echo two", timeoutMs: 20_000 });
      expect(again.infraError).toBeUndefined();
      expect(again.stdoutTail).toBe("two\n");
      await sb.close();
    });

    it("enforces the address-space limit and the process limit per job", async () => {
      const sb = await sandbox("per-run", { ...DEFAULT_LIMITS, memoryBytes: 256 * 1024 * 1024, maxProcesses: 8 });
      opened.push(sb);
      const mem = await sb.exec({
        language: "python",
        code: "x = bytearray(512 * 1024 * 1024)\nprint('allocated')",
        timeoutMs: 20_000,
      });
      expect(mem.stdoutTail).not.toContain("allocated");
      expect(mem.stderrTail).toContain("MemoryError");
      const fork = await sb.exec({
        language: "python",
        code: "import os, time\nn = 0\ntry:\n  for _ in range(50):\n    if os.fork() == 0:\n      time.sleep(5); os._exit(0)\n    n += 1\nexcept OSError as e: print('blocked', n)",
        timeoutMs: 20_000,
      });
      expect(fork.stdoutTail).toMatch(/blocked [0-9]+/);
      await sb.close();
    });

    it("timeout, output cap and cancellation stop the job at once", async () => {
      const sb = await sandbox();
      opened.push(sb);
      const t0 = performance.now();
      // Each job would sleep ten minutes: ending well inside that is the timeout or the cancel, on any machine.
      const slow = await sb.exec({ language: "python", code: "import time\ntime.sleep(600)", timeoutMs: 1000 });
      expect(slow.timedOut).toBe(true);
      expect(performance.now() - t0).toBeLessThan(30_000);
      const loud = await sb.exec({ language: "python", code: "while True: print('x' * 1000)", timeoutMs: 20_000 });
      expect(loud.outputLimitExceeded).toBe(true);
      const ac = new AbortController();
      const pending = sb.exec({ language: "bash", code: "echo go; sleep 600", timeoutMs: 600_000 }, ac.signal);
      await new Promise((r) => setTimeout(r, 1500));
      const t1 = performance.now();
      ac.abort();
      const canceled = await pending;
      expect(canceled.isCanceled).toBe(true);
      expect(performance.now() - t1).toBeLessThan(30_000);
      // The job's processes are gone: a fresh job sees only its own uid and the main process.
      const after = await sb.exec({
        language: "python",
        code: "import os\nprint(len({os.stat('/proc/'+p).st_uid for p in os.listdir('/proc') if p.isdigit()}))",
        timeoutMs: 20_000,
      });
      expect(after.stdoutTail.trim()).toBe("2");
      await sb.close();
    });

    it("per-job: cancellation removes the job's container at once", async () => {
      const jobOwner = `${owner}-cancel`;
      const sb = await sandbox("per-job", DEFAULT_LIMITS, jobOwner);
      opened.push(sb);
      const ac = new AbortController();
      const pending = sb.exec({ language: "bash", code: "sleep 600", timeoutMs: 600_000 }, ac.signal);
      // Until the job's container is up (the test's timeout bounds the wait).
      while ((await containersLabelled(env, OWNER_LABEL, jobOwner)).length === 0)
        await new Promise((r) => setTimeout(r, 100));
      expect((await containersLabelled(env, OWNER_LABEL, jobOwner)).length).toBe(1);
      const t = performance.now();
      ac.abort();
      expect((await pending).isCanceled).toBe(true);
      // Typically ~0.5 s; the job would otherwise live ten minutes: the bound leaves a busy machine room.
      expect(await waitNoneLabelled(env, OWNER_LABEL, jobOwner, 30_000)).toEqual([]);
      expect(performance.now() - t).toBeLessThan(30_000);
      await sb.close();
    });

    // Uses dist/ (npm run build), as the other process tests do.
    it("leaves no container behind when the owning process is SIGKILLed mid-job", async () => {
      const killOwner = `test-sigkill-${randomBytes(4).toString("hex")}`;
      const moduleUrl = new URL("../../../dist/sandbox/docker/docker-sandbox.js", import.meta.url).href;
      const script = `
      const { createDockerSandbox } = await import(${JSON.stringify(moduleUrl)});
      const { DEFAULT_LIMITS } = await import(${JSON.stringify(new URL("../../../dist/sandbox/limits.js", import.meta.url).href)});
      const { silentLogger } = await import(${JSON.stringify(new URL("../../../dist/util/logger.js", import.meta.url).href)});
      const sb = await createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), image: ${JSON.stringify(BASE_IMAGE)}, owner: ${JSON.stringify(killOwner)} });
      sb.exec({ language: "bash", code: "echo running; sleep 120", timeoutMs: 120000 });
      setTimeout(() => console.log("job-started"), 3000);
      setInterval(() => {}, 1000);
    `;
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (c: Buffer) => {
          if (c.toString().includes("job-started")) resolve();
        });
        child.on("exit", (code) => reject(new Error(`owner exited ${code} before its job started: ${stderr}`)));
      });
      expect((await containersLabelled(env, OWNER_LABEL, killOwner)).length).toBe(1);
      child.kill("SIGKILL");
      expect(await waitNoneLabelled(env, OWNER_LABEL, killOwner, 5000)).toEqual([]);
    });
  },
);
