/**
 * Jobs of the bwrap fork server cannot reach each other or the server: real
 * attacks as tiny programs, run next to honest jobs whose results must not
 * move. On a root host each job also has its own uid and its own /tmp.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { execFileSync } from "node:child_process";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.js";
import type { ExecOutcome, ExecRequest } from "../../src/sandbox/types.js";
import { silentLogger } from "../../src/util/logger.js";
import { LocalSandbox } from "../../src/sandbox/local/local-sandbox.js";
import { probeIsolation } from "../../src/sandbox/local/probe.js";
import { resolveLimits, TMPFS_INODES } from "../../src/sandbox/limits.js";

const hasBwrap = existsSync("/usr/bin/bwrap") || existsSync("/usr/local/bin/bwrap");
const isRoot = process.getuid?.() === 0;
const py = (code: string, timeoutMs = 5000): ExecRequest => ({ language: "python", code, timeoutMs });

/** Honest jobs: slow enough to be running while the attack runs; one passes, one fails an assert. */
const HONEST_PASS = "import time\ntime.sleep(0.4)\nassert sum(range(10)) == 45\nprint('honest ok')\n";
const HONEST_FAIL = "import time\ntime.sleep(0.4)\nassert 1 == 2, 'honest wrong'\n";
const SYSCALL = "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n";

function expectHonest(pass: ExecOutcome, fail: ExecOutcome): void {
  expect(pass).toMatchObject({ exitCode: 0, stdoutTail: "honest ok\n" });
  expect(pass.infraError).toBeUndefined();
  expect(fail).toMatchObject({ exitCode: 1 });
  expect(fail.stderrTail).toMatch(/AssertionError: honest wrong/);
  expect(fail.infraError).toBeUndefined();
}

describe.skipIf(!hasBwrap)("fork-server jobs are isolated from each other and from the server", () => {
  let sb: Sandbox;
  const hostShmBefore = existsSync("/dev/shm") ? new Set(readdirSync("/dev/shm")) : new Set<string>();

  beforeAll(async () => {
    sb = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 4 });
  });
  afterAll(async () => {
    await sb.close();
  });

  /** Run `attack` while two honest jobs are in flight on the same server. */
  async function beside(attack: string): Promise<ExecOutcome> {
    const [pass, a, fail] = await Promise.all([
      sb.exec(py(HONEST_PASS)),
      sb.exec(py(attack)),
      sb.exec(py(HONEST_FAIL)),
    ]);
    expectHonest(pass, fail);
    expect(a.infraError).toBeUndefined();
    return a;
  }

  test("SIGKILL to the server (its parent) is refused; concurrent jobs are unaffected", async () => {
    const a = await beside("import os, signal, time\ntime.sleep(0.1)\nos.kill(os.getppid(), signal.SIGKILL)\n");
    expect(a.stderrTail).toMatch(/PermissionError/);
  });

  test("kill(-1, SIGKILL) reaches no other job and not the server", async () => {
    const a = await beside(
      "import os, signal, time\ntime.sleep(0.1)\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError as e:\n    print('refused', e.errno)\nprint('alive')\n",
    );
    // kill(-1) spares the caller: with a uid of its own (root host) it finds nobody else to kill;
    // under the shared-uid seccomp filter it is refused outright.
    expect(a.stdoutTail).toMatch(/alive\n$/);
  });

  test("pidfd_open / pidfd_getfd on the server are refused (EPERM)", async () => {
    const a = await beside(`${SYSCALL}import os
pidfd = libc.syscall(434, os.getppid(), 0)
print("pidfd_open", pidfd, ctypes.get_errno())
r = libc.syscall(438, 3 if pidfd < 0 else pidfd, 1, 0)
print("pidfd_getfd", r, ctypes.get_errno())
`);
    expect(a.stdoutTail).toMatch(/pidfd_open -1 1\b/);
    expect(a.stdoutTail).toMatch(/pidfd_getfd -1 1\b/);
  });

  test("ptrace of the server and process_vm_readv are refused", async () => {
    const a = await beside(`${SYSCALL}import os
print("ptrace", libc.ptrace(16, os.getppid(), 0, 0), ctypes.get_errno())
print("vm_readv", libc.syscall(310 if os.uname().machine == "x86_64" else 270, os.getppid(), 0, 0, 0, 0, 0), ctypes.get_errno())
`);
    expect(a.stdoutTail).toMatch(/ptrace -1 1\b/);
    expect(a.stdoutTail).toMatch(/vm_readv -1 1\b/);
  });

  test("the server's memory, fds and environment are unreadable; its stdin is not inherited", async () => {
    const a = await beside(`import os
pp = os.getppid()
for p in ("/proc/%d/mem" % pp, "/proc/%d/fd/0" % pp, "/proc/%d/environ" % pp):
    try:
        open(p, "rb").read(16); print("READ", p)
    except OSError as e:
        print("denied", p, e.errno)
try:
    os.listdir("/proc/%d/fd" % pp); print("READ fd dir")
except OSError as e:
    print("denied fd dir", e.errno)
try:
    os.fstat(0); data = os.read(0, 100); print("stdin", repr(data))
except OSError as e:
    print("stdin", e.errno)
`);
    expect(a.stdoutTail).not.toMatch(/READ/);
    expect(a.stdoutTail).toMatch(/denied fd dir/);
    expect(a.stdoutTail).toMatch(/stdin b''/); // its own empty stdin, not the server's job stream
  });

  test.skipIf(!isRoot)("each job has its own uid, /tmp and /dev/shm", async () => {
    const writer = sb.exec(
      py(
        "import os, time\nopen('/tmp/planted', 'w').write('x')\nopen('/dev/shm/planted', 'w').write('x')\ntime.sleep(0.5)\nprint(os.getuid())\n",
      ),
    );
    await new Promise((r) => setTimeout(r, 150));
    const reader = await sb.exec(
      py(
        "import os\nprint(os.path.exists('/tmp/planted'), os.path.exists('/dev/shm/planted'), sorted(os.listdir('/tmp')), os.getuid())\n",
      ),
    );
    const w = await writer;
    expect(reader.stdoutTail).toMatch(/^False False \['job'\] \d+\n$/);
    const uidW = Number(w.stdoutTail.trim());
    const uidR = Number(reader.stdoutTail.trim().split(" ").at(-1));
    expect(uidW).toBeGreaterThanOrEqual(1_900_000_000);
    expect(uidR).toBeGreaterThanOrEqual(1_900_000_000);
    expect(uidW).not.toBe(uidR);
  });

  test.skipIf(!isRoot)(
    "a job's /tmp holds a bounded number of files (kernel memory size= does not count)",
    async () => {
      const a = await sb.exec(
        py(
          "import errno\nn = 0\ntry:\n    while n < 100000:\n        open('/tmp/f%d' % n, 'w').close(); n += 1\nexcept OSError as e:\n    print('refused', errno.errorcode[e.errno])\nprint(n)\n",
          20_000,
        ),
      );
      expect(a.infraError).toBeUndefined();
      const [refused, made] = a.stdoutTail.trim().split("\n");
      expect(refused).toBe("refused ENOSPC");
      expect(Number(made)).toBeGreaterThan(TMPFS_INODES - 16); // the mount's own entries (the job dir) take a few
      expect(Number(made)).toBeLessThanOrEqual(TMPFS_INODES);
      const next = await sb.exec(py("import os\nprint(len(os.listdir('/tmp')))\n"));
      expect(next.stdoutTail).toBe("1\n"); // a fresh /tmp: only its own job dir
    },
  );

  test("a job killing its own process group or itself fails alone", async () => {
    const a = await beside("import os, signal, time\ntime.sleep(0.1)\nos.killpg(0, signal.SIGKILL)\n");
    expect(a).toMatchObject({ signal: "SIGKILL" });
  });

  test("a daemon that escapes its group does not survive the job", async () => {
    const r = await sb.exec(
      py(
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(30)\n    os._exit(0)\nprint(os.getpid())\n",
      ),
    );
    expect(r.exitCode).toBe(0);
    // The next job sees no process of any job uid but its own.
    const check = await sb.exec(
      py(
        "import os\nme = os.getuid()\nn = 0\nfor p in os.listdir('/proc'):\n    if p.isdigit():\n        try: st = open('/proc/%s/status' % p).read()\n        except OSError: continue\n        uid = int(st.split('Uid:')[1].split()[0])\n        if uid != me and uid >= 1900000000: n += 1\nprint(n)\n",
      ),
    );
    expect(check.stdoutTail).toBe("0\n");
  });

  test("nothing is left in the host's temp dir or /dev/shm", async () => {
    // A temp dir of its own (TMPDIR is read per call): other tests and other users share the host's /tmp.
    const own = mkdtempSync(join(tmpdir(), "job-isolation-"));
    const saved = process.env["TMPDIR"];
    process.env["TMPDIR"] = own;
    try {
      const fresh = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 2 });
      const code = "open('/tmp/x', 'w').write('x')\nopen('/dev/shm/y', 'w').write('y')\n";
      const [forked, alone] = await Promise.all([
        fresh.exec(py(code)),
        fresh.exec({ language: "bash", code: "echo x > /tmp/x; echo y > /dev/shm/y", timeoutMs: 5000 }),
      ]);
      expect(forked.exitCode).toBe(0);
      expect(alone.exitCode).toBe(0);
      await fresh.close();
      expect(readdirSync(own)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env["TMPDIR"];
      else process.env["TMPDIR"] = saved;
      rmSync(own, { recursive: true, force: true });
    }
    const leftShm = existsSync("/dev/shm")
      ? readdirSync("/dev/shm").filter((n) => !hostShmBefore.has(n) && (n === "y" || n.startsWith("a2a")))
      : [];
    expect(leftShm).toEqual([]);
  });
});

describe.skipIf(!hasBwrap)("shared-uid fork server (the non-root variant): the seccomp filter guards signals", () => {
  let sb: LocalSandbox;
  beforeAll(async () => {
    const probe = await probeIsolation("bwrap");
    // As on a non-root host: one uid for all jobs, no private mounts; only the seccomp filter stands between jobs.
    sb = new LocalSandbox({
      probe: { ...probe, tools: { ...probe.tools, isRoot: false } },
      limits: resolveLimits({}),
      logger: silentLogger(),
      concurrency: 4,
    });
    expect(sb.forkServerMode).toBe("shared");
  });
  afterAll(async () => {
    await sb.close();
  });

  test("signals to the server, to everyone and to another job are refused; to itself they work", async () => {
    const attack = `import os, signal, time
time.sleep(0.1)
for target in (os.getppid(), -1, os.getppid() + 1, -os.getppid()):
    try:
        os.kill(target, signal.SIGKILL); print("sent", target, flush=True)
    except OSError as e:
        print("refused", e.errno, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
`;
    const [pass, a, fail] = await Promise.all([
      sb.exec(py(HONEST_PASS)),
      sb.exec(py(attack)),
      sb.exec(py(HONEST_FAIL)),
    ]);
    expectHonest(pass, fail);
    expect(a.stdoutTail).toBe("refused 1\n".repeat(4));
    expect(a).toMatchObject({ signal: "SIGKILL" });
  });
});

/**
 * One uid for the server, the zygote and every job: whatever else reaches a process of that uid. Signals by
 * rt_sigqueueinfo and rt_tgsigqueueinfo, rlimits by prlimit, SIGIO owners by fcntl and ioctl, aimed at the
 * job's parent (the zygote) and grandparent (the server). Prints "refused 1" (EPERM) for each of 9 tries.
 */
const SHARED_UID_ATTACKS = `import ctypes, fcntl, os, platform, resource, socket, struct
NR = {"x86_64": (129, 297), "aarch64": (138, 240)}[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
zygote = os.getppid()
server = int(open("/proc/%d/stat" % zygote).read().rsplit(")", 1)[1].split()[1])
info = ctypes.create_string_buffer(128)
struct.pack_into("iii", info, 0, 9, 0, -1)
def report(ok):
    print("sent" if ok else "refused %d" % ctypes.get_errno(), flush=True)
for p in (zygote, server):
    report(libc.syscall(NR[0], p, 9, info) == 0)
    report(libc.syscall(NR[1], p, p, 9, info) == 0)
    try:
        resource.prlimit(p, resource.RLIMIT_NPROC, (0, 0)); print("sent", flush=True)
    except OSError as e:
        print("refused %d" % e.errno, flush=True)
r, w = os.pipe()
try:
    fcntl.fcntl(r, fcntl.F_SETOWN, zygote); print("sent", flush=True)
except OSError as e:
    print("refused %d" % e.errno, flush=True)
a, b = socket.socketpair()
report(libc.ioctl(a.fileno(), 0x8901, ctypes.byref(ctypes.c_int(zygote))) == 0)
report(libc.ioctl(a.fileno(), 0x8902, ctypes.byref(ctypes.c_int(zygote))) == 0)
`;

/** A process made the zygote's child with clone(CLONE_PARENT), out of the job's group: it must not outlive the job. */
const CLONE_PARENT_ESCAPE = `import ctypes, os, platform, time
NR_CLONE = {"x86_64": 56, "aarch64": 220}[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
pid = libc.syscall(NR_CLONE, 0x8000 | 17, 0, 0, 0, 0)
if pid == 0:
    os.setsid()
    time.sleep(30)
    os._exit(0)
print("escaped")
`;

/** The live children of this job's parent (the zygote) other than this job: printed as a count. */
const STRAY_CHILDREN_OF_PARENT = `import os
parent, me, n = str(os.getppid()), os.getpid(), 0
for p in os.listdir("/proc"):
    if not p.isdigit() or int(p) == me: continue
    try: st = open("/proc/%s/status" % p).read()
    except OSError: continue
    if "\\nPPid:\\t%s\\n" % parent in st and "\\nState:\\tZ" not in st: n += 1
print(n)
`;

const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));
const distIndex = join(import.meta.dirname, "../../dist/sandbox/index.js");

describe.skipIf(!hasBwrap || !isRoot || !setpriv || !existsSync(distIndex))(
  "a real non-root host (the built sandbox run as uid 65534)",
  () => {
    test("bwrap works unprivileged, the server is shared-mode, the filter refuses the kill", () => {
      const script = `
      const { createSandbox } = await import(${JSON.stringify(distIndex)});
      const { silentLogger } = await import(${JSON.stringify(join(import.meta.dirname, "../../dist/util/logger.js"))});
      const sb = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 3 });
      const honest = { language: "python", code: "import time\\ntime.sleep(0.3)\\nprint('ok')", timeoutMs: 5000 };
      const attack = { language: "python", code: "import os, sys\\ntry:\\n    os.kill(os.getppid(), 9)\\nexcept OSError as e:\\n    print('refused', e.errno)\\nsys.exit(0)", timeoutMs: 5000 };
      const rs = await Promise.all([sb.exec(honest), sb.exec(attack), sb.exec(honest)]);
      const other = { language: "python", code: ${JSON.stringify(SHARED_UID_ATTACKS)}, timeoutMs: 5000 };
      const escape = { language: "python", code: ${JSON.stringify(CLONE_PARENT_ESCAPE)}, timeoutMs: 5000 };
      const check = { language: "python", code: ${JSON.stringify(STRAY_CHILDREN_OF_PARENT)}, timeoutMs: 5000 };
      const more = [await sb.exec(other), await sb.exec(escape), await sb.exec(check), await sb.exec(honest)];
      console.log(JSON.stringify({ isolation: sb.isolation, mode: sb.forkServerMode, rs: rs.concat(more).map((r) => [r.exitCode, r.stdoutTail, r.infraError ?? null]) }));
      await sb.close();`;
      const out = execFileSync(
        setpriv!,
        ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "--input-type=module", "-e", script],
        {
          encoding: "utf8",
          timeout: 60_000,
          env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: "/tmp" },
        },
      );
      const got = JSON.parse(out.trim().split("\n").at(-1)!) as { isolation: string; mode: string; rs: unknown[] };
      expect(got.mode).toBe("shared");
      expect(got.rs).toEqual([
        [0, "ok\n", null],
        [0, "refused 1\n", null],
        [0, "ok\n", null],
        [0, "refused 1\n".repeat(9), null],
        [0, "escaped\n", null],
        [0, "0\n", null],
        [0, "ok\n", null],
      ]);
    });
  },
);
