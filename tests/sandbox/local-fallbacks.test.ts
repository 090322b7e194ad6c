import { describe, expect, test } from "vitest";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { createSandbox } from "../../src/sandbox/index.js";
import { silentLogger } from "../../src/util/logger.js";

const py = (code: string, timeoutMs = 5000) => ({ language: "python" as const, code, timeoutMs });

describe("local sandbox fallbacks report their isolation level", () => {
  test.skipIf(!existsSync("/usr/bin/unshare"))(
    "unshare: own network and PID namespaces, rlimits, a warning",
    async () => {
      const sb = await createSandbox({
        backend: "local",
        logger: silentLogger(),
        backendOptions: { forceIsolation: "unshare" },
      });
      try {
        expect(sb.isolation).toBe("unshare");
        expect(sb.warnings.join(" ")).toMatch(/bubblewrap unavailable/);
        const [net, ok, bash] = await sb.execMany([
          py(`import socket\ns = socket.socket()\ns.settimeout(2)\ns.connect(("1.1.1.1", 53))`),
          py(`import os\nprint(os.getuid() != 0, len([p for p in os.listdir("/proc") if p.isdigit()]) < 20)`),
          { language: "bash", code: "echo $((6*7))", timeoutMs: 5000 },
        ]);
        expect(net!.exitCode).toBe(1);
        expect(ok!.stdoutTail).toBe("True True\n");
        expect(bash!.stdoutTail).toBe("42\n");
      } finally {
        await sb.close();
      }
    },
  );

  test("none: runs, with a loud warning", async () => {
    const sb = await createSandbox({
      backend: "local",
      logger: silentLogger(),
      backendOptions: { forceIsolation: "none" },
    });
    try {
      expect(sb.isolation).toBe("none");
      expect(sb.warnings.join(" ")).toMatch(/NOT contained/);
      const r = await sb.exec(py(`print("ran")`));
      expect(r.stdoutTail).toBe("ran\n");
      const t = await sb.exec(py(`while True: pass`, 300));
      expect(t.timedOut).toBe(true);
    } finally {
      await sb.close();
    }
  });

  test("invalid options are refused at the entry with the option named", async () => {
    await expect(
      createSandbox({ backend: "local", logger: silentLogger(), limits: { maxProcesses: 0 } }),
    ).rejects.toThrow(/limits.maxProcesses/);
    await expect(createSandbox({ backend: "local", logger: silentLogger(), concurrency: -1 })).rejects.toThrow(
      /concurrency/,
    );
  });
});

describe("local sandbox leaves nothing behind", () => {
  test(
    "concurrent first jobs share one fork-server directory, and an owner killed by SIGKILL leaves none (isolation none)",
    { timeout: 30_000 },
    async () => {
      const { mkdtempSync, readdirSync, rmSync, chmodSync } = await import("node:fs");
      const { spawn } = await import("node:child_process");
      const { tmpdir } = await import("node:os");
      // A private TMPDIR (sticky and world-writable like /tmp, so the dropped uid can use it).
      const tmp = mkdtempSync(join(tmpdir(), "a2a-leak-"));
      chmodSync(tmp, 0o1777);
      const dist = resolve(import.meta.dirname, "..", "..", "dist");
      const script = `
      const { createSandbox } = await import(${JSON.stringify(join(dist, "sandbox/index.js"))});
      const { silentLogger } = await import(${JSON.stringify(join(dist, "util/logger.js"))});
      const sb = await createSandbox({ backend: "local", logger: silentLogger(), backendOptions: { forceIsolation: "none" } });
      // Two first jobs at once: they must share one fork-server directory.
      const [r] = await sb.execMany([0, 1].map(() => ({ language: "python", code: "print('ran')", timeoutMs: 5000 })));
      process.stdout.write(r.stdoutTail);
      setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
        env: { ...process.env, TMPDIR: tmp },
        stdio: ["ignore", "pipe", "inherit"],
      });
      try {
        const ran = await new Promise<string>((res) => child.stdout.once("data", (b: Buffer) => res(b.toString())));
        expect(ran).toBe("ran\n");
        expect(readdirSync(tmp).filter((n) => n.startsWith("a2a-forksrv-"))).toHaveLength(1);
        child.kill("SIGKILL");
        let left = readdirSync(tmp);
        for (let i = 0; i < 100 && left.length > 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
          left = readdirSync(tmp);
        }
        expect(left).toEqual([]);
      } finally {
        child.kill("SIGKILL");
        rmSync(tmp, { recursive: true, force: true });
      }
    },
  );
});

describe("local sandbox warm-up", () => {
  test("warmUp() starts the fork server before any job; the first job then uses it (no second start)", async () => {
    const sb = await createSandbox({ backend: "local", logger: silentLogger() });
    try {
      const local = sb as unknown as { server: { pid: number | undefined; starts: number } };
      expect(local.server.pid).toBeUndefined();
      sb.warmUp?.();
      expect(local.server.starts).toBe(1);
      expect(local.server.pid).toBeTypeOf("number");
      const r = await sb.exec(py(`print("warm")`));
      expect(r.stdoutTail).toBe("warm\n");
      expect(local.server.starts).toBe(1);
      sb.warmUp?.(); // running already: nothing new
      expect(local.server.starts).toBe(1);
    } finally {
      await sb.close();
    }
  });
});
