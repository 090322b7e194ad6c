import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { createServer, type Server } from "node:net";
import { chmod, mkdtemp, readdir, rm } from "node:fs/promises";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { silentLogger } from "../../src/util/logger.js";

const py = (code: string, timeoutMs = 5000) => ({ language: "python" as const, code, timeoutMs });
const sh = (code: string, timeoutMs = 5000) => ({ language: "bash" as const, code, timeoutMs });

// bubblewrap is required: tests/global-setup.ts stops the suite when it is missing (`npm run setup`).
describe("local sandbox (bwrap) containment", () => {
  let sb: Sandbox;
  let hostDir: string;
  let server: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    process.env["A2A_TEST_SECRET"] = "hunter2-secret-value";
    sb = await createSandbox({
      backend: "local",
      logger: silentLogger(),
      concurrency: 4,
      limits: { maxProcesses: 32, memoryBytes: 512 * 1024 * 1024, maxOutputBytes: 256 * 1024 },
    });
    // Under the checkout, not /tmp: the sandbox has its own /tmp, the checkout is the host FS it sees (read-only).
    hostDir = await mkdtemp(join(process.cwd(), ".a2a-host-"));
    await chmod(hostDir, 0o777); // writable by anyone on the host: only the sandbox may stop the write
    server = createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    delete process.env["A2A_TEST_SECRET"];
    await sb.close();
    server.close();
    await rm(hostDir, { recursive: true, force: true });
  });

  test("reports bwrap isolation without warnings", () => {
    expect(sb.isolation).toBe("bwrap");
    expect(sb.backend).toBe("local");
  });

  test("a write outside its dir does not reach the host", async () => {
    const target = join(hostDir, "escaped.txt");
    const [forked, alone] = await Promise.all([
      sb.exec(py(`open(${JSON.stringify(target)}, "w").write("x")`)),
      sb.exec(sh(`echo x > ${target}`)),
    ]);
    expect(forked.exitCode).not.toBe(0);
    expect(forked.stderrTail).toMatch(/Read-only file system|Permission denied|No such file or directory/); // host dirs under /tmp do not exist inside (private tmpfs)
    expect(alone.exitCode).not.toBe(0);
    expect(existsSync(target)).toBe(false);
  });

  test("a symlink in its dir pointing at a host path does not let it write there", async () => {
    const target = join(hostDir, "via-link.txt");
    const r = await sb.exec(
      py(`import os\nos.symlink(${JSON.stringify(hostDir)}, "link")\nopen("link/via-link.txt", "w").write("x")`),
    );
    expect(r.exitCode).not.toBe(0);
    expect(existsSync(target)).toBe(false);
  });

  test("/etc/shadow cannot be read", async () => {
    const r = await sb.exec(py(`print(open("/etc/shadow").read())`));
    expect(r.exitCode).toBe(1);
    expect(r.stdoutTail).not.toMatch(/root:/);
  });

  test("no network: neither a host loopback port nor an outside address", async () => {
    const code = (host: string, p: number) =>
      `import socket\ns = socket.socket()\ns.settimeout(2)\ns.connect((${JSON.stringify(host)}, ${p}))\nprint("connected")`;
    const [local, outside] = await sb.execMany([py(code("127.0.0.1", port)), py(code("1.1.1.1", 53))]);
    expect(local!.exitCode).toBe(1);
    expect(local!.stderrTail).toMatch(/ConnectionRefused|Network is unreachable/);
    expect(outside!.exitCode).toBe(1);
    expect(outside!.stdoutTail).not.toContain("connected");
    expect(connections).toBe(0);
  });

  test("a fork bomb is stopped, the host is fine and nothing is left behind", async () => {
    const r = await sb.exec(
      py(`import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass`, 1500),
    );
    expect(r.timedOut).toBe(true);
    // Count what is left in the sandbox's own PID namespace: bwrap's init, the fork server, its zygote, this job.
    const count = await sb.exec(py(`import os\nprint(len([p for p in os.listdir("/proc") if p.isdigit()]))`));
    expect(Number(count.stdoutTail)).toBeLessThanOrEqual(4);
    const after = await sb.exec(py(`print("still fine")`));
    expect(after.stdoutTail).toBe("still fine\n");
  });

  test("what a job leaves running in its group when it exits is gone before the next job", async () => {
    const r = await sb.exec(py(`import subprocess\nsubprocess.Popen(["sleep", "30"])\nprint("left")`));
    expect(r).toMatchObject({ exitCode: 0, stdoutTail: "left\n" });
    const count = await sb.exec(
      py(
        `import os\nn = 0\nfor p in os.listdir("/proc"):\n    if p.isdigit():\n` +
          `        try: st = open("/proc/%s/status" % p).read()\n        except OSError: continue\n` +
          `        if "\\nState:\\tZ" not in st: n += 1\nprint(n)`,
      ),
    );
    expect(count.stdoutTail).toBe("4\n"); // bwrap's init, the fork server, its zygote, this job
  });

  test("endless allocation is stopped by the address-space limit", async () => {
    const r = await sb.exec(py(`a = []\nwhile True:\n    a.append(bytearray(10**7))`, 10_000));
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(1);
    expect(r.stderrTail).toContain("MemoryError");
  });

  test("printing gigabytes is stopped at the cap with bounded memory here", async () => {
    const rss0 = process.memoryUsage().rss;
    const [forked, alone] = await Promise.all([
      sb.exec(py(`import sys\nb = "x" * (1 << 20)\nwhile True:\n    sys.stdout.write(b)`, 20_000)),
      sb.exec(sh(`yes xxxxxxxxxxxxxxxx`, 20_000)),
    ]);
    for (const r of [forked, alone]) {
      expect(r.outputLimitExceeded).toBe(true);
      expect(r.timedOut).toBe(false);
      expect(r.stdoutTail.length).toBeLessThanOrEqual(256 * 1024);
    }
    expect(process.memoryUsage().rss - rss0).toBeLessThan(200 * 1024 * 1024);
  });

  test("an infinite loop times out", async () => {
    const [forked, alone] = await Promise.all([
      sb.exec(py(`while True: pass`, 500)),
      sb.exec(sh(`while :; do :; done`, 500)),
    ]);
    for (const r of [forked, alone]) {
      expect(r.timedOut).toBe(true);
      // The loop never ends by itself: timedOut is the proof; the bound only says it ended (a busy machine is slow).
      expect(r.durationMs).toBeLessThan(30_000);
    }
  });

  test("host environment secrets are invisible", async () => {
    const [forked, alone] = await Promise.all([
      sb.exec(py(`import os\nprint(dict(os.environ))`)),
      sb.exec(sh(`env; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'`)),
    ]);
    expect(forked.stdoutTail).not.toContain("hunter2");
    expect(alone.stdoutTail).not.toContain("hunter2");
    expect(alone.stdoutTail).toContain("PATH=");
  });

  test("host processes are invisible and cannot be signalled", async () => {
    const r = await sb.exec(
      sh(
        `ls /proc | grep -c '^[0-9]'; cat /proc/*/cmdline 2>/dev/null | tr '\\0' ' '; kill -9 ${process.pid}; kill -9 $PPID; kill -9 -1; echo survived`,
      ),
    );
    expect(r.stdoutTail).not.toContain("vitest");
    expect(r.stdoutTail).not.toMatch(/node /);
    const forked = await sb.exec(py(`import os\nos.kill(${process.pid}, 9)`));
    expect(forked.stderrTail).toContain("ProcessLookupError");
    // Still alive: this line runs.
    expect(process.pid).toBeGreaterThan(0);
  });

  test("a job cannot kill the fork server or its zygote: the signals are refused and the server keeps serving", async () => {
    const before = (sb as unknown as { server: { pid: number | undefined } }).server.pid;
    // The job's parent is the zygote; the zygote's parent is the server.
    const r = await sb.exec(
      py(
        `import os, signal\nz = os.getppid()\ns = int(open("/proc/%d/stat" % z).read().rsplit(")", 1)[1].split()[1])\n` +
          `for p in (z, s):\n    try:\n        os.kill(p, signal.SIGKILL)\n        print("killed", p)\n` +
          `    except PermissionError:\n        print("refused")\n`,
      ),
    );
    expect(r.infraError).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect(r.stdoutTail).toBe("refused\nrefused\n");
    const after = await sb.exec(py(`print(6 * 7)`));
    expect(after.stdoutTail).toBe("42\n");
    expect((sb as unknown as { server: { pid: number | undefined } }).server.pid).toBe(before);
  });

  // A job forked by the zygote forked by the server: found from the host through /proc (its cmdline, like its
  // parents', is the server's program). Polled until it exists: on a busy machine the server may still be starting.
  const parentOf = (pid: string): string | undefined => {
    try {
      return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1];
    } catch {
      return undefined;
    }
  };
  const isServerProgram = (pid: string | undefined): boolean => {
    try {
      return pid !== undefined && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("ROOT = sys.argv[1]");
    } catch {
      return false;
    }
  };
  const runningJob = (server: { pid: number | undefined }) =>
    vi.waitFor(
      () => {
        const first = server.pid;
        const job = readdirSync("/proc").find((p) => {
          if (!/^\d+$/.test(p) || !isServerProgram(p)) return false;
          const zygote = parentOf(p);
          return isServerProgram(zygote) && parentOf(zygote!) === String(first);
        });
        if (first === undefined || job === undefined) throw new Error("no job running yet");
        return { first, job };
      },
      { timeout: 50_000, interval: 10 },
    );

  test("a fork server that dies anyway (crash) re-runs the job on a fresh server, not an infraError", async () => {
    const server = (sb as unknown as { server: { pid: number | undefined; kill(): void } }).server;
    await sb.exec(py("pass")); // the server is up: what the zygote forks from now on are jobs
    const pending = sb.exec(py(`import time\ntime.sleep(2)\nprint("done")`));
    const { first } = await runningJob(server);
    server.kill();
    const r = await pending;
    expect(r.infraError).toBeUndefined();
    expect(r.stdoutTail).toBe("done\n");
    expect(server.pid).not.toBe(first);
  });

  test("a zygote that dies (crash) ends its server, and the job runs again on a fresh server", async () => {
    const server = (sb as unknown as { server: { pid: number | undefined } }).server;
    await sb.exec(py("pass"));
    const pending = sb.exec(py(`import time\ntime.sleep(2)\nprint("done")`));
    const { first, job } = await runningJob(server);
    process.kill(Number(parentOf(job)), "SIGKILL");
    const r = await pending;
    expect(r.infraError).toBeUndefined();
    expect(r.stdoutTail).toBe("done\n");
    expect(server.pid).not.toBe(first);
  });

  test("200 jobs run concurrently with correct per-job results, in order", async () => {
    const reqs = Array.from({ length: 200 }, (_, i) =>
      py(`import time\ntime.sleep(${(199 - i) % 7} / 1000)\nprint(${i} * ${i})`),
    );
    const rs = await sb.execMany(reqs);
    expect(rs.map((r) => r.stdoutTail)).toEqual(reqs.map((_, i) => `${i * i}\n`));
    expect(rs.every((r) => r.exitCode === 0)).toBe(true);
  });

  test("exit codes, stdin, files and SystemExit map like a plain python run", async () => {
    const [a, b, c] = await sb.execMany([
      { ...py(`import sys\nsys.exit(3)`) },
      { ...py(`import sys\nprint(sys.stdin.read().upper())`), stdin: "hello" },
      {
        ...py(`import helper\nprint(helper.X, open("data/x.txt").read())`),
        files: { "helper.py": "X = 5", "data/x.txt": "d" },
      },
    ]);
    expect(a!.exitCode).toBe(3);
    expect(b!.stdoutTail).toBe("HELLO\n");
    expect(c!.stdoutTail).toBe("5 d\n");
  });

  test("a forked job's environment is the one it was given, in os.environ and in what its subprocesses inherit", async () => {
    const [r] = await sb.execMany([
      {
        ...py(
          `import os, subprocess\nprint(sorted("%s=%s" % kv for kv in os.environ.items()))\n` +
            `print(sorted(subprocess.run(["/usr/bin/env"], capture_output=True, text=True).stdout.splitlines()))`,
        ),
        env: { ONLY_THIS: "1" },
      },
    ]);
    expect(r!.exitCode).toBe(0);
    const [own, inherited] = r!.stdoutTail.trim().split("\n");
    expect(inherited).toBe(own);
    expect(own).toContain("'ONLY_THIS=1'");
    expect(own).not.toContain("hunter2");
  });

  test("a job's files, in nested dirs and not ASCII, are its own: readable, writable, and beside new files", async () => {
    const [r] = await sb.execMany([
      {
        ...py(
          `import os\nprint(open("a/b/c.txt", encoding="utf-8").read())\n` +
            `open("a/b/c.txt", "a").write("+")\nopen("a/b/new.txt", "w").write("n")\nopen("a/top.txt", "w").write("t")\n` +
            `print(open("a/b/c.txt", encoding="utf-8").read(), sorted(os.listdir("a/b")), sorted(os.listdir("a")))`,
        ),
        files: { "a/b/c.txt": "h\u00e9 \u2713", "a/x.txt": "x" },
      },
    ]);
    expect(r!.stderrTail).toBe("");
    expect(r!.stdoutTail).toBe("h\u00e9 \u2713\nh\u00e9 \u2713+ ['c.txt', 'new.txt'] ['b', 'top.txt', 'x.txt']\n");
  });

  test("a stdin larger than a pipe holds (64 KiB) reaches the program whole, in both paths", async () => {
    const big = "x".repeat(1 << 20) + "\n" + "y".repeat(70_000);
    const program = `import hashlib, sys\nd = sys.stdin.buffer.read()\nprint(len(d), hashlib.sha256(d).hexdigest())`;
    const [forked, alone] = await sb.execMany([
      { ...py(program, 30_000), stdin: big },
      { language: "bash", code: "sha256sum | cut -d' ' -f1", timeoutMs: 30_000, stdin: big }, // one sandbox per exec
    ]);
    const sha = createHash("sha256").update(big).digest("hex");
    expect(forked!.stdoutTail).toBe(`${Buffer.byteLength(big)} ${sha}\n`);
    expect(alone!.stdoutTail).toBe(`${sha}\n`);
  });

  test("abort kills running jobs (fork server and one-off)", async () => {
    const ac = new AbortController();
    const started = Date.now();
    const p = sb.execMany([py(`import time\ntime.sleep(600)`, 600_000), sh(`sleep 600`, 600_000)], ac.signal);
    setTimeout(() => ac.abort(), 300);
    const rs = await p;
    expect(rs.every((r) => r.isCanceled)).toBe(true);
    // The jobs would run ten minutes: ending well inside that is the abort, however busy the machine.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test("workDir is writable, its owner is restored afterwards", async () => {
    const dir = await mkdtemp(join(tmpdir(), "a2a-work-"));
    try {
      const r = await sb.exec({ ...sh(`echo made > out.txt; pwd`), workDir: dir });
      expect(r.exitCode).toBe(0);
      expect(r.stdoutTail.trim()).toBe(dir);
      expect(await readdir(dir)).toEqual(["out.txt"]);
      const owner = execFileSync("stat", ["-c", "%u", join(dir, "out.txt")], { encoding: "utf8" }).trim();
      expect(owner).toBe(String(process.getuid!()));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("exec after close is refused", async () => {
    const s = await createSandbox({ backend: "local", logger: silentLogger() });
    await s.close();
    await s.close();
    await expect(s.exec(py("print(1)"))).rejects.toMatchObject({ code: "E_SANDBOX_CLOSED" });
  });
});
