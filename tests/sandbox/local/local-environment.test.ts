/**
 * The local backend's environments (src/sandbox/local/local-environment.ts) against the Environment
 * contract, and attacked as a participant would: real bwrap, real processes, loopback only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:net";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { createSandbox, environmentsOf, type Environment } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import { silentLogger } from "../../../src/util/logger.js";
import { SandboxCapabilityError } from "../../../src/sandbox/capabilities.js";
import { shellEnvironment } from "../../../src/interactive/shell-environment.js";
import { sabotageProgram } from "../../support/leftovers.js";

const probe = await createSandbox({ backend: "local", logger: silentLogger() });
const skip = probe.capabilities.has("environments") ? null : `no environments here (isolation ${probe.isolation})`;
await probe.close();

const T = { timeoutMs: 20_000 };

/** Processes of this host whose command line holds `mark`. */
function processesWith(mark: string): string[] {
  return execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(mark) && !l.includes("ps -eo"));
}

async function gone(mark: string, withinMs = 20_000): Promise<string[]> {
  const end = Date.now() + withinMs;
  for (;;) {
    const left = processesWith(mark);
    if (left.length === 0 || Date.now() > end) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const bash = (env: Environment, script: string, o = T) => env.exec(["bash", "-lc", script], o);

/** Waits until `path` exists in the environment (read by its server, not a command); the test's timeout bounds it. */
async function waitForFile(env: Environment, path: string): Promise<void> {
  while (
    !(await env.readFile(path).then(
      () => true,
      () => false,
    ))
  )
    await new Promise((r) => setTimeout(r, 50));
}

describe.skipIf(skip !== null)(`local environments${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let sandbox: Sandbox;
  let scratch: string;
  const open = (spec: Parameters<NonNullable<Sandbox["openEnvironment"]>>[0] = { owner: "t" }) =>
    environmentsOf(sandbox, "test").openEnvironment(spec);

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "a2a-local-env-test-"));
    sandbox = await createSandbox({
      backend: "local",
      logger: silentLogger(),
      hiddenPaths: [scratch],
      limits: { maxProcesses: 64, memoryBytes: 512 * 1024 * 1024, cpuSeconds: 20, maxOutputBytes: 1 << 20 },
    });
  }, 60_000);
  afterAll(async () => {
    await sandbox?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it("filling the disk is bounded: past limits.diskBytes the environment ends, limitExceeded, later calls too", async () => {
    const limits = { maxProcesses: 64, memoryBytes: 512 * 1024 * 1024, cpuSeconds: 20, maxOutputBytes: 1 << 20 };
    const env = await open({ owner: "t", limits: { ...limits, diskBytes: 32 * 1024 * 1024 } });
    try {
      const small = await bash(env, "head -c 1048576 /dev/urandom > a.bin && echo ok");
      expect(small.output.trim()).toBe("ok");
      expect(small.limitExceeded).toBeUndefined();
      // Many files, each under the file-size limit: only the tree's measure stops them.
      const big = await bash(
        env,
        "i=0; while [ $i -lt 400 ]; do head -c 1048576 /dev/urandom > f$i.bin || break; i=$((i+1)); done; echo wrote $i",
      );
      const after = big.limitExceeded ?? (await env.limitProblem?.());
      expect(after).toMatch(/disk limit: .* past its limit of 32\.0 MiB/);
      const later = await bash(env, "echo still");
      expect(later.limitExceeded).toMatch(/disk limit/);
      expect(later.exitCode).toBeNull();
    } finally {
      await env.close();
    }
  }, 120_000);

  it("keeps files and background processes across commands; each command is a fresh bash -lc in the tree", async () => {
    const env = await open({ owner: "t", files: { dir: "/env", entries: { "given.txt": "in place\n" } } });
    try {
      const first = await bash(
        env,
        "cat given.txt; echo kept > made.txt; cd /tmp; export X=1; (sleep 60 &) ; pwd; id -u",
      );
      expect(first.exitCode).toBe(0);
      const [given, pwd, uid] = first.output.trim().split("\n");
      expect([given, pwd]).toEqual(["in place", "/tmp"]);
      expect(Number(uid)).not.toBe(0);
      const second = await bash(env, 'cat made.txt; pwd; echo "X=${X:-unset}"; pgrep -c sleep');
      expect(second.output.trim().split("\n")).toEqual(["kept", "/env", "X=unset", "1"]);
      expect(await env.readFile("/env/made.txt")).toBe("kept\n");
      await env.writeFile("/env/sub/w.txt", "written");
      expect((await bash(env, "cat sub/w.txt")).output).toBe("written");
      expect((await bash(env, "exit 7")).exitCode).toBe(7);
      expect((await env.exec(["no-such-program-x"], T)).exitCode).toBe(127);
    } finally {
      await env.close();
    }
  }, 60_000);

  it("a command's timeout ends the environment; later calls report the participant's time limit and nothing runs", async () => {
    const env = await open();
    try {
      const o = await bash(env, "sleep 600", { timeoutMs: 500 });
      expect(o).toMatchObject({ timedOut: true, exitCode: null });
      // The command would sleep ten minutes: timedOut is the proof; the bound leaves a busy machine room.
      expect(o.durationMs).toBeLessThan(20_000);
      const after = await bash(env, "echo ran");
      // What the command did (it outran its limit), never the backend's failure.
      expect(after.infraError).toBeUndefined();
      expect(after.limitExceeded).toMatch(/time limit: a command did not end/);
      expect(after.output).toBe("");
      await expect(env.readFile("/env/x")).rejects.toMatchObject({
        code: "E_SANDBOX_SETUP",
        message: expect.stringMatching(/time limit: a command did not end/) as unknown,
      });
      // The backend is sound: the participant's command ended it.
      expect(await env.backendProblem()).toBeNull();
    } finally {
      await env.close();
    }
  }, 30_000);

  it("aborting a command ends the environment promptly", async () => {
    const env = await open();
    try {
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 300);
      const o = await env.exec(["sleep", "600"], { timeoutMs: 600_000, signal: ac.signal });
      expect(o).toMatchObject({ isCanceled: true, exitCode: null });
      // The command would sleep ten minutes: ending well inside that is the abort, however busy the machine.
      expect(o.durationMs).toBeLessThan(20_000);
      expect((await bash(env, "echo ran")).infraError).toContain("cancellation");
    } finally {
      await env.close();
    }
  }, 30_000);

  it("close() kills every process of the environment (a background sleep, a setsid grandchild) and is idempotent", async () => {
    const mark = `a2a-env-close-${randomBytes(4).toString("hex")}`;
    const env = await open();
    const o = await bash(
      env,
      `(exec -a ${mark}a sleep 600) >/dev/null 2>&1 & setsid bash -c '(exec -a ${mark}b sleep 600) & sleep 600' >/dev/null 2>&1 & echo ok`,
    );
    expect(o.output).toBe("ok\n");
    // Both background sleeps are up (they start after "ok" is printed: wait for them, not for a guessed 300 ms).
    await expect.poll(() => processesWith(mark).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    await env.close();
    await env.close();
    expect(await gone(mark)).toEqual([]);
    expect((await bash(env, "true")).infraError).toBeDefined();
  }, 30_000);

  it("nothing outlives an owner killed by SIGKILL", async () => {
    const mark = `a2a-env-owner-${randomBytes(4).toString("hex")}`;
    // The built package (as tests/sandbox/owner-sigkill.test.ts): `npm run build` first.
    const dist = resolve(import.meta.dirname, "..", "..", "..", "dist");
    const script = [
      `const { createSandbox, environmentsOf } = await import(${JSON.stringify(join(dist, "sandbox/index.js"))});`,
      `const { silentLogger } = await import(${JSON.stringify(join(dist, "util/logger.js"))});`,
      `const sb = await createSandbox({ backend: "local", logger: silentLogger() });`,
      `const env = await environmentsOf(sb, "t").openEnvironment({ owner: "t" });`,
      `await env.exec(["bash", "-lc", "(exec -a ${mark} sleep 600) >/dev/null 2>&1 & setsid bash -c 'exec -a ${mark}s sleep 600' >/dev/null 2>&1 &"], { timeoutMs: 20000 });`,
      `process.stdout.write("ready\\n");`,
      `setInterval(() => {}, 1000);`,
    ].join("\n");
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (b: Buffer) => b.toString().includes("ready") && resolve());
      child.once("exit", (c) => reject(new Error(`owner exited ${c}`)));
    });
    try {
      expect(processesWith(mark).length).toBeGreaterThanOrEqual(2);
    } finally {
      child.kill("SIGKILL");
    }
    expect(await gone(mark)).toEqual([]);
  }, 60_000);

  it("has no network: a loopback port the test opened on the host is unreachable", async () => {
    const server: Server = createServer((s) => s.end("hello"));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    const env = await open();
    try {
      const o = await bash(
        env,
        `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected; ip -o link 2>/dev/null | wc -l; true`,
      );
      expect(o.output).not.toContain("connected");
      expect(o.output).toMatch(/Connection refused|Network is unreachable/);
    } finally {
      await env.close();
      server.close();
    }
  }, 30_000);

  it("sees only the allowlisted host: hidden paths masked, host secrets and the checkout absent", async () => {
    const secret = join(scratch, "secret.txt");
    await writeFile(secret, "TOP-SECRET");
    const env = await open();
    try {
      const o = await bash(
        env,
        `cat ${secret} 2>&1; cat /etc/shadow 2>&1 | head -c 20; echo; ls /root /home 2>&1; ls ${process.cwd()} 2>&1; touch /usr/x 2>&1; echo end`,
      );
      expect(o.output).not.toContain("TOP-SECRET");
      expect(o.output).not.toMatch(/root:[x*!$]/);
      expect(o.output).toContain("Read-only file system");
      expect(o.output).not.toContain("package.json");
    } finally {
      await env.close();
    }
  }, 30_000);

  it("two environments at once see neither each other's tree nor each other's processes", async () => {
    const a = await open({ owner: "t", tree: { host: await treeWith("A-ONLY"), dir: "/work" } });
    const b = await open({ owner: "t", tree: { host: await treeWith("B-ONLY"), dir: "/work" } });
    try {
      await bash(a, "(exec -a a2a-proc-of-A sleep 60) >/dev/null 2>&1 &");
      const o = await bash(
        b,
        "cat marker; pgrep -fc 'a2a-proc-of-[A]'; find / \\( -path /proc -o -path /usr -o -path /sys \\) -prune -o -name marker -print 2>/dev/null",
      );
      expect(o.output.trim().split("\n")).toEqual(["B-ONLY", "0", "/work/marker"]);
      expect((await bash(a, "pgrep -fc 'a2a-proc-of-[A]'")).output).toBe("1\n");
      expect((await bash(a, "cat marker")).output).toBe("A-ONLY\n");
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);

  async function treeWith(text: string): Promise<string> {
    const d = join(scratch, `tree-${randomBytes(4).toString("hex")}`);
    await mkdir(d);
    await writeFile(join(d, "marker"), text + "\n");
    return d;
  }

  it("a tree is copied, never changed on the host; its symlinks stay links", async () => {
    const host = await treeWith("ORIGINAL");
    const { symlinkSync } = await import("node:fs");
    symlinkSync("/etc/shadow", join(host, "shadow-link"));
    const env = await open({ owner: "t", tree: { host, dir: "/testbed" } });
    try {
      const o = await bash(
        env,
        "echo changed > marker; cat shadow-link 2>&1 | head -c 10; echo; rm -rf ./*; ls | wc -l",
      );
      expect(o.output).not.toMatch(/root:/);
      expect(o.output.trim().split("\n").at(-1)).toBe("0");
      expect(await readdir(host)).toEqual(["marker", "shadow-link"]);
    } finally {
      await env.close();
    }
  }, 30_000);

  it("a fork bomb is bounded by the process cap and the environment answers afterwards", async () => {
    const env = await open();
    try {
      const o = await bash(env, "bomb() { bomb | bomb & }; bomb; sleep 2; echo survived", { timeoutMs: 30_000 });
      expect(o.timedOut).toBe(false);
      const after = await bash(env, "pkill -KILL -u $(id -u) -f 'bash -lc' ; true", { timeoutMs: 30_000 });
      expect(after.infraError).toBeUndefined();
      // The server (PID 1) survived it all and still forks commands.
      let ok = false;
      for (let i = 0; i < 120 && !ok; i++) {
        const r = await env.exec(["true"], T);
        ok = r.exitCode === 0;
        if (!ok) await new Promise((r) => setTimeout(r, 250));
      }
      expect(ok).toBe(true);
    } finally {
      await env.close();
    }
  }, 90_000);

  it("a 1 GiB output flood keeps only the tail; the environment lives on", async () => {
    const env = await open();
    try {
      const o = await env.exec(["bash", "-c", "head -c 1073741824 /dev/zero | tr '\\0' x; echo END"], {
        timeoutMs: 120_000,
        maxOutputBytes: 4096,
      });
      expect(o.exitCode).toBe(0);
      expect(o.output.length).toBeLessThanOrEqual(4096);
      expect(o.output.endsWith("xEND\n")).toBe(true);
      expect((await bash(env, "echo alive")).output).toBe("alive\n");
    } finally {
      await env.close();
    }
  }, 180_000);

  it("readFile is bounded: a symlink out of the tree resolves inside the sandbox, a FIFO and /dev/zero are refused at once", async () => {
    const env = await open();
    try {
      await bash(
        env,
        "ln -s /etc/shadow s1; mkfifo fifo; ln -s /dev/zero z; ln -s /proc/1/environ e; head -c 20000000 /dev/zero > big",
      );
      await expect(env.readFile("/env/s1")).rejects.toThrow(/not a regular file|No such file/);
      const t0 = Date.now();
      await expect(env.readFile("/env/fifo")).rejects.toThrow(/not a regular file/);
      await expect(env.readFile("/env/z")).rejects.toThrow(/not a regular file/);
      await expect(env.readFile("/dev/zero")).rejects.toThrow(/not a regular file/);
      await expect(env.readFile("/env/big")).rejects.toThrow(/larger than/);
      await expect(env.readFile("/env/e")).rejects.toThrow(/Permission denied|not a regular file/);
      expect(Date.now() - t0).toBeLessThan(10_000);
      await expect(env.writeFile("/env/fifo", "x")).rejects.toThrow(/not a regular file|No such device/);
      // The other side of a link planted toward a host file is the sandbox's own view: the host file is untouched.
      const hostFile = join(scratch, "victim.txt");
      await writeFile(hostFile, "host");
      await bash(env, `ln -sf ${hostFile} victim`);
      await expect(env.writeFile("/env/victim", "overwritten")).rejects.toThrow();
      expect((await stat(hostFile)).size).toBe(4);
      expect((await bash(env, "echo alive")).output).toBe("alive\n");
    } finally {
      await env.close();
    }
  }, 60_000);

  it("the environment's server cannot be killed or stopped from inside (PID 1)", async () => {
    const env = await open();
    try {
      const o = await bash(env, "kill -KILL 1; kill -STOP 1; kill -TERM 1; kill -INT 1; kill -KILL -1; echo sent");
      expect(o.output).toContain("sent");
      expect((await bash(env, "echo alive")).output).toBe("alive\n");
      const ptrace = await bash(env, "cat /proc/1/environ 2>&1 | head -c 80; ls /proc/1/fd 2>&1 | head -2");
      expect(ptrace.output).toMatch(/Permission denied/);
    } finally {
      await env.close();
    }
  }, 30_000);

  it("a command cannot end the server through its rlimits (prlimit acts only on the command itself)", async () => {
    const env = await open();
    try {
      // The server's address space capped at what it uses now and its CPU time at 1 s would end the environment
      // as a backend failure (infraError: ours, never scored) instead of the participant's: refused.
      const o = await bash(
        env,
        "prlimit --pid 1 --as=$(($(awk '/VmSize/{print $2}' /proc/1/status) * 1024)) --cpu=1:1 2>&1; echo sent",
      );
      expect(o.output).toMatch(/Operation not permitted[\s\S]*sent/);
      // Its own limits stay its own to lower.
      expect((await bash(env, "ulimit -v 500000 && ulimit -v")).output).toBe("500000\n");
      for (let i = 0; i < 3; i++) {
        const next = await bash(env, "head -c 3000000 /dev/zero | wc -c");
        expect(next.infraError).toBeUndefined();
        expect(next).toMatchObject({ output: "3000000\n", exitCode: 0 });
      }
      expect(await env.backendProblem()).toBeNull();
    } finally {
      await env.close();
    }
  }, 30_000);

  it("a command's process is set up the same whether it was prepared ahead (the spare) or forked on request", async () => {
    const env = await open();
    try {
      const view = [
        'echo "own session: $(($(ps -o sid= -p $$) == $$))"',
        // Through a file, not a pipe: bash closes its pipe ends only after forking both sides, so a loaded
        // machine can show them.
        "ls /proc/$$/fd > /tmp/fds.$$; tr '\\n' ' ' < /tmp/fds.$$; echo",
        "readlink /proc/$$/fd/0",
        "grep -E '^Sig(Ign|Blk)' /proc/$$/status",
        "ulimit -a | sort",
        "pwd",
      ].join("; ");
      // A background process of the previous command kills the spare prepared after it ended; the next command
      // then finds none and is forked on request. The one after it gets the spare prepared again.
      // It leaves a mark once its kill is sent (kill -1 spares its sender): wait for that, not a guessed 1.5 s.
      await bash(env, "(sleep 0.3; kill -KILL -1; : > /env/killed) >/dev/null 2>&1 & echo started");
      await waitForFile(env, "/env/killed");
      const plain = await bash(env, view);
      const prepared = await bash(env, view);
      expect(plain.exitCode).toBe(0);
      expect(prepared.output).toBe(plain.output);
      expect(plain.output).toContain("own session: 1");
      expect(plain.output).toMatch(/^0 1 2 $/m);
      expect(plain.output).toContain("/dev/null");
    } finally {
      await env.close();
    }
  }, 30_000);

  it("a stopped or killed spare never holds a command up; a request too large for its pipe still runs", async () => {
    const env = await open();
    try {
      // While a command runs there is no spare (it is the command): what a command leaves behind can reach it.
      for (const signal of ["STOP", "KILL"]) {
        const left = await bash(
          env,
          `(sleep 0.3; kill -${signal} -1; : > /env/sent-${signal}) >/dev/null 2>&1 & echo started`,
        );
        expect(left.output).toBe("started\n");
        await waitForFile(env, `/env/sent-${signal}`);
        // A held command would wait forever: the limit only ends the test, and is generous for a loaded host.
        expect(await bash(env, "echo alive", { timeoutMs: 60_000 })).toMatchObject({ output: "alive\n", exitCode: 0 });
      }
      // Two arguments of 100 KB (one argument may not pass 128 KB): more than a pipe holds at once.
      const big = "x".repeat(100_000);
      const o = await env.exec(["bash", "-c", 'echo "$((${#1} + ${#2}))"', "_", big, big], { timeoutMs: 60_000 });
      expect(o).toMatchObject({ output: "200000\n", exitCode: 0 });
    } finally {
      await env.close();
    }
  }, 240_000);

  it("keeps stderr apart on request, each stream's tail bounded, the process prepared ahead or forked on request", async () => {
    const env = await open();
    try {
      expect(env.separateStreams).toBe(true);
      const script = "echo out1; echo err1 >&2; echo out2; exit 3";
      const apart = await env.exec(["bash", "-c", script], { ...T, streams: "separate" });
      expect(apart).toMatchObject({ output: "out1\nout2\n", stderr: "err1\n", exitCode: 3 });
      const together = await env.exec(["bash", "-c", script], T);
      expect(together).toMatchObject({ output: "out1\nerr1\nout2\n", exitCode: 3 });
      expect(together.stderr).toBeUndefined();
      // Too large for the spare's request pipe: forked on request, the streams kept apart the same way.
      const big = "x".repeat(100_000);
      const plain = await env.exec(["bash", "-c", 'echo "$((${#1} + ${#2}))"; echo e >&2', "_", big, big], {
        ...T,
        streams: "separate",
      });
      expect(plain).toMatchObject({ output: "200000\n", stderr: "e\n", exitCode: 0 });
      const flood = await env.exec(
        ["bash", "-c", "head -c 300000 /dev/zero | tr '\\0' o; head -c 300000 /dev/zero | tr '\\0' e >&2"],
        {
          ...T,
          streams: "separate",
          maxOutputBytes: 1000,
        },
      );
      expect(flood.output).toBe("o".repeat(1000));
      expect(flood.stderr).toBe("e".repeat(1000));
    } finally {
      await env.close();
    }
  }, 30_000);

  it("drives the interactive shell wrapper: its timeout leaves the environment alive", async () => {
    const env = await open();
    try {
      const shell = shellEnvironment(env, { workdir: "/env" });
      const o = await shell.run("echo out; echo err >&2; sleep 30", 1, new AbortController().signal);
      expect(o).toMatchObject({ timedOut: true, stdout: "out\n", stderr: "err\n" });
      expect((await shell.run("pwd", 10, new AbortController().signal)).stdout).toBe("/env\n");
    } finally {
      await env.close();
    }
  }, 60_000);

  it("refuses an image and a tree over the system, leaving nothing behind", async () => {
    const before = (await readdir(tmpdir())).filter((n) => n.startsWith("a2a-env-")).length;
    await expect(open({ owner: "t", image: "debian" })).rejects.toThrow(/not an image/);
    await expect(open({ owner: "t", tree: { host: scratch, dir: "/usr/local" } })).rejects.toThrow(/system/);
    expect((await readdir(tmpdir())).filter((n) => n.startsWith("a2a-env-")).length).toBe(before);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "each private tmpfs (/tmp, /var/tmp, /dev/shm) holds at most TMPFS_INODES files and stays writable (root host)",
    async () => {
      const env = await open();
      try {
        const caps = await bash(env, "for d in /tmp /var/tmp /dev/shm; do stat -f -c %c $d; stat -c %a $d; done");
        expect(caps.output.trim().split("\n")).toEqual(["16384", "1777", "16384", "1777", "16384", "1777"]);
        const fill = await bash(
          env,
          `python3 -c 'import os
n = 0
try:
    while n < 20000:
        open("/tmp/f%d" % n, "w").close(); n += 1
except OSError as e: print("stopped", n, e.errno)
'`,
          { timeoutMs: 120_000 },
        );
        expect(fill.output).toMatch(/^stopped 163\d\d 28\n/); // ENOSPC at the cap (less the root's own inodes)
      } finally {
        await env.close();
      }
    },
    180_000,
  );

  it("a tree deeper than PATH_MAX, mode-000 directories, a FIFO and a socket left in the environment are removed at close", async () => {
    const env = await open();
    const mark = `a2a-mark-${randomBytes(6).toString("hex")}`;
    await env.writeFile(`/env/${mark}`, "here");
    await env.writeFile("/env/sabotage.py", sabotageProgram("."));
    const o = await bash(env, "python3 sabotage.py");
    expect(o.output.trim()).toBe("sabotaged");
    // Other tests' trees come and go under the same TMPDIR while find walks it: their races are no finding here.
    const hostCopies = (): string[] =>
      spawnSync("find", [tmpdir(), "-ignore_readdir_race", "-maxdepth", "3", "-name", mark], { encoding: "utf8" })
        .stdout.split("\n")
        .filter(Boolean);
    expect(hostCopies()).toHaveLength(1);
    const root = resolve(hostCopies()[0]!, "..", "..");
    await env.close();
    await expect(stat(root)).rejects.toMatchObject({ code: "ENOENT" });
  }, 120_000);

  it("`kill -STOP -1` holds its command past its limit: the environment ends and later calls say so as the participant's limit, never the backend's failure", async () => {
    const env = await open();
    try {
      // Through the episodes' wrapper: the command stops the wrapper and its `timeout` (its own shell is spared).
      const shell = shellEnvironment(env, { workdir: "/env" });
      const signal = new AbortController().signal;
      const stopped = await shell.run("kill -STOP -1; echo stopped-them", 1, signal);
      expect(stopped.exitCode).toBeNull();
      expect(stopped.infraError).toBeUndefined();
      const later = await shell.run("echo again", 10, signal);
      expect(later.infraError).toBeUndefined();
      expect(later.limitExceeded).toMatch(/time limit: a command did not end/);
      // An episode that ends with `final` right after it is asked the same, and the backend is sound.
      expect(await env.limitProblem!()).toMatch(/time limit: a command did not end/);
      await expect(env.readFile("/env/absent")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
      expect(await env.backendProblem()).toBeNull();
    } finally {
      await env.close();
    }
  }, 60_000);
});

describe("local environments below bwrap", () => {
  it("are refused (fail closed) with the capability error and its fix", async () => {
    const sb = await createSandbox({
      backend: "local",
      logger: silentLogger(),
      backendOptions: { forceIsolation: "none" },
    });
    try {
      expect(sb.capabilities.has("environments")).toBe(false);
      expect(() => environmentsOf(sb, "test")).toThrow(SandboxCapabilityError);
      await expect(sb.openEnvironment!({ owner: "t" })).rejects.toMatchObject({ code: "E_SANDBOX_CAPABILITY" });
    } finally {
      await sb.close();
    }
  });
});
