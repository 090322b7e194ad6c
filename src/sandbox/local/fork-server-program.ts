/**
 * The fork server, embedded so dist/ is self-contained. One long-lived
 * python3 inside ONE sandbox; jobs arrive as JSON lines on stdin, each is run
 * in a forked child (no interpreter start per job: this is what makes 164
 * HumanEval programs take a fraction of a second), results leave as JSON lines
 * on stdout. Per child: own session/process group, rlimits, private job dir,
 * cleared environment, captured and capped stdout/stderr, wall timeout that
 * SIGKILLs the group. The server is a child subreaper, so processes that
 * escape their group (setsid + double fork) are reparented here and killed.
 *
 * Jobs are forked by a zygote, forked once from the server before the first
 * job, so the server, which does every job's bookkeeping, never forks (each
 * page a forking process writes after a fork is copied: see "the zygote"
 * below). The zygote only forks jobs and reports their wait statuses; what
 * runs in a job before its program (setup_job) calls C functions directly
 * where Python code would write to pages it shares with the zygote.
 *
 *
 * argv: [1] the server's root, [2] the mode (below), [3] modules to load once
 * before any job is forked, as JSON (name -> python source; see PRELOAD).
 *
 * Isolation between jobs and from the server (argv[2] = mode):
 * - always: the server and every job are non-dumpable (PR_SET_DUMPABLE 0), so
 *   no job can ptrace it, pidfd_getfd its fds or open /proc/<server>/{mem,fd,
 *   environ}; each job runs under a seccomp filter (classic BPF, arch checked,
 *   x86_64 and aarch64) that answers EPERM to ptrace, pidfd_open, pidfd_getfd,
 *   pidfd_send_signal, process_vm_readv/writev and kcmp; only fds 0-2 (and the
 *   job's control pipe, fd 3) survive into a job.
 * - "private" (bwrap with a root host; the server keeps CAP_SYS_ADMIN, SETUID,
 *   SETGID, CHOWN, KILL inside bwrap): each job gets its own mount namespace
 *   with fresh size- and inode-capped tmpfs on /tmp, /var/tmp and /dev/shm (its files are
 *   written there, and vanish with it), then drops every capability by
 *   switching to a uid of its own slot (SLOT_UID_BASE + slot). Jobs therefore
 *   cannot signal the server or each other (different uids, no CAP_KILL), and
 *   RLIMIT_NPROC counts one job's processes only. A slot is reused only after
 *   every process of its uid is killed.
 * - "shared" (no root): one uid for all; the seccomp filter also refuses
 *   kill/tkill/tgkill aimed anywhere but the job's own leader pid or process
 *   group (or 0), so a job cannot signal the server or another job.
 *
 * Control pipe (fd 3 in the child, closed before the program runs): the
 * child writes "K" once setup is done (or "E<message>" when setup failed: an
 * infrastructure error).
 *
 * Protocol in:  {"op":"run","id":N,"code":str,"timeoutMs":n,"env":{},"stdin":str|null,
 *                "files":{rel:str},"limits":{"memoryBytes","maxProcesses","cpuSeconds","maxOutputBytes"},
 *                "tmpfsBytes":n,"tmpfsInodes":n}
 *               {"op":"cancel","id":N}
 * Protocol out: {"ready":true} once, then per job {"id","exitCode","signal","timedOut","canceled",
 *                "outputLimitExceeded","durationMs","stdout","stderr","infraError"?}
 */
import { KILL_UID_PY } from "../kill-uid-py.js";

/** First uid of the per-slot uids of "private" mode (far above any distribution's ranges). */
export const SLOT_UID_BASE = 1_900_000_000;

export const FORK_SERVER_PROGRAM = String.raw`
import os, sys, json, signal, selectors, resource, time, shutil, traceback, ctypes, errno, struct, platform, socket, array, select

ROOT = sys.argv[1]
MODE = sys.argv[2] if len(sys.argv) > 2 else "shared"
PRELOAD = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
SLOT_UID_BASE = ${SLOT_UID_BASE}
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 4, 38, 22, 2
if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
    sys.stderr.write("prctl(PR_SET_DUMPABLE, 0) failed\n"); sys.exit(3)
# Modules solutions commonly import are loaded once here, so forked jobs find them ready.
import importlib, gc, _signal
# A job's first steps call the C functions directly (_signal, libc, os): whatever Python code the child runs
# before the program writes to the server's heap pages it shares, and each first write copies a page.
DEFAULT_SIGNALS = (int(signal.SIGCHLD), int(signal.SIGINT), int(signal.SIGTERM))
SIG_DFL_NUMBER = int(signal.SIG_DFL)
for _m in ("math", "re", "collections", "itertools", "functools", "hashlib", "string", "heapq", "bisect",
           "random", "statistics", "fractions", "decimal", "typing", "copy", "operator", "unittest"):
    try: importlib.import_module(_m)
    except Exception: pass
# Modules the run gave (argv[3], name -> source): compiled and run once here, before the zygote is forked, so
# every job finds them in sys.modules instead of carrying and compiling their code itself. A job that changes
# one changes its own copy only (each job is a forked process).
import types
for _name, _src in PRELOAD.items():
    _mod = types.ModuleType(_name)
    _mod.__file__ = "<%s>" % _name
    exec(compile(_src, _mod.__file__, "exec"), _mod.__dict__)
    sys.modules[_name] = _mod
del PRELOAD
PR_SET_CHILD_SUBREAPER = 36
try:
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
except Exception:
    pass

# --- seccomp ------------------------------------------------------------------------------------
ARCH = {"x86_64": (0xC000003E, {"ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
                                "pidfd_open": 434, "pidfd_getfd": 438, "pidfd_send_signal": 424,
                                "kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129,
                                "rt_tgsigqueueinfo": 297, "prlimit64": 302, "fcntl": 72, "ioctl": 16}),
        "aarch64": (0xC00000B7, {"ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "kcmp": 272,
                                 "pidfd_open": 434, "pidfd_getfd": 438, "pidfd_send_signal": 424,
                                 "kill": 129, "tkill": 130, "tgkill": 131, "rt_sigqueueinfo": 138,
                                 "rt_tgsigqueueinfo": 240, "prlimit64": 261, "fcntl": 25, "ioctl": 29})}
RET_ALLOW, RET_EPERM = 0x7FFF0000, 0x00050000 | errno.EPERM
LD_W_ABS, JEQ_K, JSET_K, RET_K = 0x20, 0x15, 0x45, 0x06

def seccomp_build(leader):
    if platform.machine() not in ARCH:
        # Fail closed: no job runs without its filter.
        raise OSError(errno.ENOSYS, "seccomp filter: unsupported architecture %s (known: %s)" % (platform.machine(), ", ".join(ARCH)))
    arch, nr = ARCH[platform.machine()]
    prog = []
    def op(code, k, jt=0, jf=0): prog.append([code, jt, jf, k])
    op(LD_W_ABS, 4); op(JEQ_K, arch, 1, 0); op(RET_K, RET_EPERM)
    op(LD_W_ABS, 0)
    if arch == 0xC000003E:
        op(JSET_K, 0x40000000, 0, 1); op(RET_K, RET_EPERM)
    for name in ("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_open", "pidfd_getfd", "pidfd_send_signal"):
        op(JEQ_K, nr[name], 0, 1); op(RET_K, RET_EPERM)
    if MODE != "private":
        # One uid for the server, the zygote and every job: what reaches another process of that uid is refused
        # unless it names the job itself (its leader pid or group, or 0 = itself). Signals: kill, tkill,
        # tgkill, rt_(tg)sigqueueinfo; rlimits: prlimit64; SIGIO/SIGURG sent to an owner: fcntl F_SETOWN(_EX),
        # ioctl FIOSETOWN/SIOCSPGRP (refused whatever the owner: F_SETOWN_EX and the ioctls pass it by pointer).
        me, grp = leader & 0xFFFFFFFF, (-leader) & 0xFFFFFFFF
        ARG0, ARG1 = 16, 24
        allow_only = (("kill", ARG0, (0, me, grp)), ("tgkill", ARG0, (me,)), ("tkill", ARG0, (me,)),
                      ("rt_sigqueueinfo", ARG0, (me,)), ("rt_tgsigqueueinfo", ARG0, (me,)),
                      ("prlimit64", ARG0, (0, me)))
        for name, arg, allowed in allow_only:
            # JEQ nr ? (load the argument; JEQ a1 -> allow; ...; EPERM) : skip block
            op(JEQ_K, nr[name], 0, len(allowed) + 3)
            op(LD_W_ABS, arg)
            n = len(allowed)
            for i, a in enumerate(allowed):
                # on match jump to the ALLOW that follows the EPERM: skip remaining jeqs + EPERM
                op(JEQ_K, a, (n - 1 - i) + 1, 0)
            op(RET_K, RET_EPERM)
            op(RET_K, RET_ALLOW)
        F_SETOWN, F_SETOWN_EX, FIOSETOWN, SIOCSPGRP = 8, 15, 0x8901, 0x8902
        for name, arg, refused in (("fcntl", ARG1, (F_SETOWN, F_SETOWN_EX)), ("ioctl", ARG1, (FIOSETOWN, SIOCSPGRP))):
            # JEQ nr ? (load the argument; JEQ r1 -> refuse; ...; ALLOW) : skip block
            op(JEQ_K, nr[name], 0, len(refused) + 3)
            op(LD_W_ABS, arg)
            n = len(refused)
            for i, a in enumerate(refused):
                op(JEQ_K, a, (n - 1 - i) + 1, 0)
            op(RET_K, RET_ALLOW)
            op(RET_K, RET_EPERM)
    op(RET_K, RET_ALLOW)
    return b"".join(struct.pack("HBBI", *i) for i in prog), len(prog)

class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

def seccomp_program(leader):
    data, n = seccomp_build(leader)
    buf = ctypes.create_string_buffer(data, len(data))
    return buf, SockFprog(n, ctypes.cast(buf, ctypes.c_void_p))

# "private" mode's filter names no pid, so it is built once here; "shared" mode's names the job's leader.
PRIVATE_FILTER = seccomp_program(0) if MODE == "private" else None

def seccomp_install(leader):
    fp = PRIVATE_FILTER[1] if PRIVATE_FILTER is not None else seccomp_program(leader)[1]
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fp), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")

# --- private mounts (mode "private") ---------------------------------------------------------------
CLONE_NEWNS, MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 0x00020000, 2, 4, 0x4000, 0x40000

def private_tmp(size, inodes):
    if libc.unshare(CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "mount --make-rprivate /")
    opts = ("size=%d,nr_inodes=%d,mode=1777" % (size, inodes)).encode()
    for p in (b"/tmp", b"/var/tmp", b"/dev/shm"):
        if libc.mount(b"tmpfs", p, b"tmpfs", MS_NOSUID | MS_NODEV, opts) != 0:
            raise OSError(ctypes.get_errno(), "mount tmpfs %s" % p.decode())

free_slots = []
next_slot = 0
def take_slot():
    global next_slot
    if free_slots: return free_slots.pop()
    next_slot += 1
    return next_slot - 1

${KILL_UID_PY}

sel = selectors.DefaultSelector()
jobs = {}      # pid -> job
by_id = {}     # id -> job
wake_r, wake_w = os.pipe()
os.set_blocking(wake_r, False); os.set_blocking(wake_w, False)
signal.set_wakeup_fd(wake_w)
signal.signal(signal.SIGCHLD, lambda *a: None)
os.set_blocking(0, False)
inbuf = bytearray()
stdin_open = True
seq = 0

def emit(obj):
    data = (json.dumps(obj) + "\n").encode()
    while data:
        try:
            n = os.write(1, data); data = data[n:]
        except BlockingIOError:
            time.sleep(0.001)

class Tail:
    __slots__ = ("cap", "buf", "total")
    def __init__(self, cap):
        self.cap = cap; self.buf = bytearray(); self.total = 0
    def add(self, b):
        self.total += len(b); self.buf += b
        if len(self.buf) > 2 * self.cap:
            del self.buf[:len(self.buf) - self.cap]
        return self.total > self.cap
    def text(self):
        return bytes(self.buf[-self.cap:]).decode("utf-8", "replace")

def safe_rel(rel):
    return rel and not rel.startswith("/") and ".." not in rel.split("/")

def write_job_files(d, files):
    """The job's files under d (paths checked by safe_files), as UTF-8; returns every path made, parents first."""
    made = [d]
    for rel, content in files.items():
        parts = rel.split("/")
        p = d
        for part in parts[:-1]:
            if not part: continue
            p = p + "/" + part
            try:
                os.mkdir(p, 0o777)
                made.append(p)
            except FileExistsError:
                pass
        p = p + "/" + parts[-1]
        fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        try:
            view = memoryview(content.encode("utf-8"))
            while view: view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        if p not in made: made.append(p)
    return made

def clear_environ():
    """Empty os.environ and the C environment (what a subprocess inherits)."""
    data = getattr(os.environ, "_data", None)
    if isinstance(data, dict) and libc.clearenv() == 0:
        data.clear()
    else:
        os.environ.clear()

def setup_job(job, d, uid):
    """In the forked child, before any program code: namespace, files, limits, uid, seccomp."""
    if MODE == "private":
        private_tmp(job["tmpfsBytes"], job["tmpfsInodes"])
    os.mkdir(d, 0o700)
    made = write_job_files(d, job.get("files") or {})
    if MODE == "private":
        # Last made first: once a dir is the job's, this process (no CAP_DAC_OVERRIDE) cannot enter it.
        for p in reversed(made): os.lchown(p, uid, uid)
    lim = job["limits"]
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (lim["cpuSeconds"], lim["cpuSeconds"]))
    resource.setrlimit(resource.RLIMIT_NPROC, (lim["maxProcesses"], lim["maxProcesses"]))
    resource.setrlimit(resource.RLIMIT_AS, (lim["memoryBytes"], lim["memoryBytes"]))
    if MODE == "private":
        # From uid 0 to a non-zero uid: the kernel clears every capability (no KEEPCAPS).
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    seccomp_install(os.getpid())
    os.chdir(d)

def read_all(fd):
    chunks = []
    while True:
        b = os.read(fd, 1 << 20)
        if not b: return b"".join(chunks)
        chunks.append(b)

def child(spec_r, d, out_w, err_w, in_r, ctl_w, uid):
    """A job, forked by the zygote: reads its job line from spec_r, sets itself up, runs the program."""
    code = 1
    try:
        try:
            job = json.loads(read_all(spec_r))
            os.close(spec_r)
        except BaseException as e:
            try: os.write(ctl_w, ("Ejob line: %s" % e).encode()[:2000])
            except OSError: pass
            code = 125
            return
        os.setsid()
        os.dup2(in_r, 0); os.dup2(out_w, 1); os.dup2(err_w, 2); os.dup2(ctl_w, 3)
        os.closerange(4, 65536)
        for s in DEFAULT_SIGNALS:
            _signal.signal(s, SIG_DFL_NUMBER)
        signal.set_wakeup_fd(-1)
        try:
            setup_job(job, d, uid)
        except BaseException as e:
            try: os.write(3, ("E%s" % e).encode()[:2000])
            except OSError: pass
            code = 125
            return
        os.write(3, b"K")
        os.close(3)
        clear_environ()
        for k, v in (job.get("env") or {}).items(): os.environ[k] = v
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        sys.argv = ["solution.py"]
        sys.path.insert(0, d)
        src = job["code"]
        g = {"__name__": "__main__", "__builtins__": __builtins__, "__file__": os.path.join(d, "solution.py")}
        def run():
            # Drop the server's state inherited by fork (other jobs' records) before the program runs.
            job.clear(); by_id.clear(); jobs.clear(); inbuf.clear()
            exec(compile(src, "solution.py", "exec"), g)
        try:
            run()
            code = 0
        except SystemExit as e:
            c = e.code
            if c is None: code = 0
            elif isinstance(c, int): code = c & 0xFF
            else:
                try: print(c, file=sys.stderr)
                except Exception: pass
                code = 1
        except BaseException:
            try: traceback.print_exc()
            except Exception: pass
            code = 1
        for f in (sys.stdout, sys.stderr):
            try: f.flush()
            except Exception: pass
    finally:
        os._exit(code)

def safe_files(job):
    for rel in (job.get("files") or {}):
        if not safe_rel(rel):
            raise ValueError("file path must be relative and stay inside the job dir: %r" % rel)

# A pipe holds 64 KiB: a larger stdin would block the server until the job reads it. It goes in an anonymous
# file instead (memfd, or an unlinked temp file), read from its start; only this job holds it.
PIPE_STDIN_MAX = 65536

def stdin_source(data):
    if len(data) < PIPE_STDIN_MAX:
        return os.pipe()
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("stdin", os.MFD_CLOEXEC)
    else:
        import tempfile
        fd = os.dup(tempfile.TemporaryFile().fileno())
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd, None

def data_fd(data):
    """A readable fd holding data from its start: a pipe it fits in (written and closed now), else stdin_source's file."""
    rd, wr = stdin_source(data)
    if wr is not None:
        try:
            view = memoryview(data)
            while view: view = view[os.write(wr, view):]
        finally:
            os.close(wr)
    return rd

def start(job, line):
    global seq
    seq += 1
    d = "/tmp/job" if MODE == "private" else os.path.join(ROOT, "job-%d" % seq)
    made = []
    try:
        safe_files(job)
        for _ in range(3): made.extend(os.pipe())
        out_r, out_w, err_r, err_w, ctl_r, ctl_w = made
        data = (job.get("stdin") or "").encode()
        in_r, in_w = stdin_source(data)
        made.append(in_r)
        if in_w is not None: made.append(in_w)
        spec_r = data_fd(line)
        made.append(spec_r)
    except Exception as e:
        for fd in made: os.close(fd)
        emit({"id": job["id"], "infraError": "job setup: %s" % e})
        return
    slot = take_slot() if MODE == "private" else None
    uid = SLOT_UID_BASE + slot if slot is not None else os.getuid()
    pid = zygote_fork(job["id"], d, uid, [spec_r, out_w, err_w, in_r, ctl_w])
    for fd in (spec_r, out_w, err_w, in_r, ctl_w): os.close(fd)
    if in_w is not None:
        try:
            os.write(in_w, data)
        except OSError:
            pass
        os.close(in_w)
    cap = job["limits"]["maxOutputBytes"]
    st = {"id": job["id"], "pid": pid, "dir": None if MODE == "private" else d, "t0": time.monotonic(),
          "deadline": time.monotonic() + job["timeoutMs"] / 1000.0, "slot": slot, "uid": uid,
          "out": Tail(cap), "err": Tail(cap), "ctl": bytearray(), "fds": {out_r: "out", err_r: "err", ctl_r: "ctl"},
          "reason": None, "status": None}
    for fd in (out_r, err_r, ctl_r):
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ, ("pipe", st))
    jobs[pid] = st; by_id[job["id"]] = st

def kill(st, reason):
    if st["reason"] is None:
        st["reason"] = reason
    try: os.killpg(st["pid"], signal.SIGKILL)
    except OSError: pass

def drain(st, fd):
    which = st["fds"].get(fd)
    if which is None: return
    while True:
        try:
            b = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            b = b""
        if not b:
            sel.unregister(fd); os.close(fd); del st["fds"][fd]
            return
        if which == "ctl":
            if len(st["ctl"]) < 4096: st["ctl"] += b[:4096 - len(st["ctl"])]
        elif st[which].add(b):
            kill(st, "output")

def kill_orphans():
    # Kill what escaped its job's group: a process reparented to us (the subreaper), or made a child of the
    # zygote with clone(CLONE_PARENT), that is neither the zygote nor a running job's leader. Pass after pass
    # until one finds nothing alive: a killed process's own children are reparented to us only once it has
    # died, and it dies only when next scheduled (not at once on a busy machine), so the next job never sees it.
    parents = (str(os.getpid()), str(ZYGOTE_PID))
    deadline = time.monotonic() + KILL_UID_SECONDS
    while True:
        found = False
        for p in os.listdir("/proc"):
            if not p.isdigit(): continue
            try:
                fields = read_proc(p, "stat").rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if fields[0] == "Z" or fields[0] == "X": continue
            if fields[1] in parents and int(p) != ZYGOTE_PID and int(p) not in jobs:
                found = True
                try: os.kill(int(p), signal.SIGKILL)
                except OSError: pass
        if not found or time.monotonic() >= deadline: return
        time.sleep(0.002)

def finish(st):
    for fd in list(st["fds"]):
        drain(st, fd)
    for fd in list(st["fds"]):
        sel.unregister(fd); os.close(fd)
    st["fds"].clear()
    status = st["status"]
    res = {"id": st["id"], "exitCode": None, "signal": None,
           "timedOut": st["reason"] == "timeout", "canceled": st["reason"] == "cancel",
           "outputLimitExceeded": st["reason"] == "output",
           "durationMs": int((time.monotonic() - st["t0"]) * 1000),
           "stdout": st["out"].text(), "stderr": st["err"].text()}
    if os.WIFEXITED(status): res["exitCode"] = os.WEXITSTATUS(status)
    elif os.WIFSIGNALED(status): res["signal"] = signal.Signals(os.WTERMSIG(status)).name
    ctl = bytes(st["ctl"])
    if ctl[:1] == b"E":
        res["infraError"] = "job setup: " + ctl[1:].decode("utf-8", "replace")
    elif ctl[:1] != b"K" and (res["signal"] is None or st["reason"] is None):
        # The child died before its setup finished, not by our kill: nothing of the program ran.
        res["infraError"] = "job setup ended without a status (exit %s, signal %s)" % (res["exitCode"], res["signal"])
    by_id.pop(st["id"], None)
    if st["dir"] is not None: shutil.rmtree(st["dir"], ignore_errors=True)
    if st["slot"] is not None:
        kill_uid(st["uid"])
        free_slots.append(st["slot"])
    emit(res)

def reap_children():
    # Our children are the zygote and orphans (killed by kill_orphans): reaped here, the zygote's end is fatal.
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0: break
        if pid == ZYGOTE_PID: zygote_gone("exited (status %d)" % status)

def reap():
    reap_children()
    if exited:
        done = exited[:]; del exited[:]
        kill_orphans()
        for st in done: finish(st)
        # What those kills left are zombies of ours (they count against their uid's process limit): gone
        # before the next job line is read.
        reap_children()

def handle_line(line):
    msg = json.loads(line)
    if msg.get("op") == "run":
        start(msg, line)
    elif msg.get("op") == "cancel":
        st = by_id.get(msg["id"])
        if st is not None and st["status"] is None: kill(st, "cancel")

# --- the zygote ----------------------------------------------------------------------------------
# Jobs are forked by a zygote, a process forked from this one once, before the first job, that does nothing
# else: after every fork, the first write to each page of the forking process copies it (a page fault each,
# tens of microseconds on a virtual machine), and this server's own work per job (the job line, pipes,
# selectors, the result) wrote some 250 pages each time. The zygote receives a job's id, directory, uid and
# fds (its job line, stdout, stderr, stdin and control pipe ends) over a socket, forks the job, answers with
# its pid, and reports each job's wait status when it reaps it. It never runs candidate code: the job does,
# after setup_job. It is not a subreaper, so what escapes a job's group is reparented to this server, which
# kills it (kill_orphans). If it ends, this server ends too (the node side runs the jobs again elsewhere).
ZMSG = struct.Struct("=cxxxxxxxqq")   # to the server: (b"S", job id, pid or -errno) | (b"X", pid, wait status)
ZJOB = struct.Struct("=qqq")          # to the zygote: job id, uid, dir length; then the dir, then 5 fds
ZJOB_FDS = 5

def zygote_main(sock):
    code = 0
    live = set()
    try:
        null = os.open("/dev/null", os.O_RDWR)
        os.dup2(null, 0); os.dup2(null, 1); os.close(null)
        sel.close(); os.close(wake_r); os.close(wake_w)
        zr, zw = os.pipe()
        os.set_blocking(zr, False); os.set_blocking(zw, False)
        signal.set_wakeup_fd(zw)
        while True:
            ready = select.select([sock, zr], [], [])[0]
            if zr in ready:
                try:
                    while os.read(zr, 512): pass
                except BlockingIOError:
                    pass
            if sock in ready:
                msg, anc, _, _ = sock.recvmsg(4096, socket.CMSG_SPACE(ZJOB_FDS * 4))
                if not msg: break
                fds = array.array("i")
                for level, kind, data in anc:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
                jid, uid, dlen = ZJOB.unpack_from(msg)
                d = msg[ZJOB.size:ZJOB.size + dlen].decode()
                if len(fds) != ZJOB_FDS or len(msg) != ZJOB.size + dlen:
                    raise OSError(errno.EPROTO, "bad job message from the server")
                try:
                    pid = os.fork()
                except OSError as e:
                    pid = -(e.errno or errno.EAGAIN)
                if pid == 0:
                    child(fds[0], d, fds[1], fds[2], fds[3], fds[4], uid)
                for fd in fds: os.close(fd)
                if pid > 0: live.add(pid)
                sock.send(ZMSG.pack(b"S", jid, pid))
            while live:
                try:
                    pid, status = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0: break
                # Helpers left in the job's group die now, before any new job can be given this pid.
                try: os.killpg(pid, signal.SIGKILL)
                except OSError: pass
                live.discard(pid)
                sock.send(ZMSG.pack(b"X", pid, status))
    except BaseException:
        code = 1
        try: traceback.print_exc()
        except BaseException: pass
    finally:
        for pid in live:
            try: os.killpg(pid, signal.SIGKILL)
            except OSError: pass
        os._exit(code)

exited = []  # records of jobs the zygote reaped, taken out of jobs (their pid may be reused), not finished yet
# The zygote's answer to a job comes at once (it only forks); one that does not is stopped or wedged.
ZYGOTE_REPLY_SECONDS = 30

def zygote_gone(why):
    sys.stderr.write("fork server: the zygote %s\n" % why); sys.stderr.flush()
    for st in jobs.values():
        try: os.killpg(st["pid"], signal.SIGKILL)
        except OSError: pass
    os._exit(70)

def zygote_message(msg):
    if len(msg) != ZMSG.size: zygote_gone("sent a malformed message")
    kind, a, b = ZMSG.unpack(msg)
    if kind == b"X":
        # Out of jobs at once: the zygote sends this before it can fork a job that reuses the pid.
        st = jobs.pop(a, None)
        if st is not None:
            st["status"] = b
            exited.append(st)
    return kind, a, b

def zygote_fork(jid, d, uid, fds):
    """The job's pid, forked by the zygote."""
    dbytes = d.encode()
    try:
        zsock.sendmsg([ZJOB.pack(jid, uid, len(dbytes)) + dbytes],
                      [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        while True:
            if not select.select([zsock], [], [], ZYGOTE_REPLY_SECONDS)[0]:
                zygote_gone("did not answer within %d s" % ZYGOTE_REPLY_SECONDS)
            msg = zsock.recv(64)
            if not msg: zygote_gone("closed its socket")
            kind, a, b = zygote_message(msg)
            if kind == b"S":
                if a != jid: zygote_gone("answered for another job")
                # A fork that fails ends the server, as it did when the server forked: the node side runs
                # the job again on a fresh one.
                if b < 0: zygote_gone("cannot fork: %s" % os.strerror(-b))
                return b
    except OSError as e:
        zygote_gone("cannot be reached: %s" % e)

def zygote_read():
    while True:
        try:
            msg = zsock.recv(64, socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        if not msg: zygote_gone("closed its socket")
        kind, _, _ = zygote_message(msg)
        if kind != b"X": zygote_gone("answered a job it was not asked for")

sel.register(0, selectors.EVENT_READ, ("stdin", None))
sel.register(wake_r, selectors.EVENT_READ, ("wake", None))
gc.freeze()  # keep the preloaded heap shared copy-on-write across forks
zsock, zpeer = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
sys.stdout.flush(); sys.stderr.flush()
ZYGOTE_PID = os.fork()
if ZYGOTE_PID == 0:
    zsock.close()
    zygote_main(zpeer)
zpeer.close()
sel.register(zsock.fileno(), selectors.EVENT_READ, ("zygote", None))
emit({"ready": True})
while stdin_open or jobs:
    now = time.monotonic()
    timeout = None
    for st in jobs.values():
        if st["reason"] is None:
            left = st["deadline"] - now
            if left <= 0: kill(st, "timeout")
            else: timeout = left if timeout is None else min(timeout, left)
    for key, _ in sel.select(timeout):
        kind, st = key.data
        if kind == "pipe":
            drain(st, key.fd)
        elif kind == "wake":
            try:
                while os.read(wake_r, 512): pass
            except BlockingIOError:
                pass
        elif kind == "zygote":
            zygote_read()
        else:
            try:
                b = os.read(0, 1 << 20)
            except BlockingIOError:
                continue
            if not b:
                stdin_open = False; sel.unregister(0)
                for st2 in list(jobs.values()): kill(st2, "cancel")
                continue
            inbuf += b
            while True:
                i = inbuf.find(b"\n")
                if i < 0: break
                line = bytes(inbuf[:i]); del inbuf[:i + 1]
                if line.strip(): handle_line(line)
    reap()
zsock.close()  # the zygote reads its end and exits
try: os.waitpid(ZYGOTE_PID, 0)
except ChildProcessError: pass
# Stdin closed and every job reaped: the owner closed us or died. Outside bwrap
# ROOT is a host directory made for this server alone; remove it (if empty) so
# an owner killed by SIGKILL leaves nothing behind.
if ROOT != "/tmp":
    try: os.rmdir(ROOT)
    except OSError: pass
`;
