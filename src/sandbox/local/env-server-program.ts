/**
 * The resident server of a local environment (local-environment.ts),
 * embedded so dist/ is self-contained. One python3 per environment, started
 * by bwrap as PID 1 of the environment's own PID namespace (`--as-pid-1`),
 * already dropped to the environment's uid with every capability gone. It
 * forks one child per exec request, so a command costs a fork and an exec,
 * never a sandbox start, and whatever a command leaves (files, a background
 * server) lives on for the next one.
 *
 * Why PID 1: the kernel delivers to a namespace's init only the signals it
 * has a handler for when they come from inside the namespace, so a command
 * running as the same uid cannot kill or stop it (SIGKILL and SIGSTOP are
 * dropped); the only handler installed is SIGCHLD's, which merely wakes the
 * loop. It is non-dumpable: no ptrace, no /proc/1/{mem,fd,environ}. When it
 * ends, the kernel kills every process of the namespace: whatever a command
 * left, a `setsid` grandchild included. It ends when its stdin closes (the
 * owner closed it or died, even by SIGKILL) or when it gets SIGKILL from
 * outside (the owner's close, or PR_SET_PDEATHSIG when bwrap's monitor dies).
 *
 * The next command's process is forked and prepared ahead of its request (the spare: its session, fds,
 * signals and limits below, set up after the previous command ended), so a command's latency is the
 * request's hop to it and its exec, not python's fork and the set-up (about 11 ms of a 20 ms trivial
 * command in this sandbox). The spare is a process of the environment's uid and counts toward its
 * process cap; it inherits the server's non-dumpable state until it execs (no ptrace, no /proc/<pid>/fd),
 * and reads its request from a pipe only the server holds. A command that kills or stops it (`kill -9 -1`,
 * `kill -STOP -1`: a stopped spare is let go, never handed a request) or leaves the cap full only costs the
 * next command the plain way: fork and set-up on its path.
 *
 * Per command: a seccomp filter letting prlimit64 act only on the calling
 * process (the kernel checks another process's limits against the uid alone:
 * a command capping the server's address space or CPU time would end the
 * environment as if the backend had failed), its own session, stdin /dev/null, stdout and stderr one pipe
 * (interleaved in arrival order) or, when the request says `separate`, a pipe
 * each (a tail of each kept, each of maxOutputBytes), signal dispositions reset, the sandbox's
 * rlimits (address space, processes, CPU seconds, file size, no core),
 * cleared environment. The command is done when its own process exits: what
 * the pipe holds then is its output; what background processes write later
 * is read and dropped (they are never blocked nor killed by SIGPIPE). The
 * server itself has no CPU or memory rlimit (a command's output flood must
 * not end the environment); its buffers are bounded by each request's cap.
 *
 * readFile/writeFile run here, as the environment's uid and in its mount
 * view: a path (or a symlink a command planted) resolves inside the
 * sandbox, where another environment's tree and the host's hidden files do
 * not exist. Only regular files are read or written (a FIFO or a device is
 * refused at once: opened non-blocking, checked with fstat), reads stop at
 * the cap.
 *
 * Protocol in (JSON lines): {"op":"exec","id",argv,cwd,env,maxOutputBytes,separate?}
 *   {"op":"read","id",path,max} {"op":"write","id",path,data (base64)}
 * Protocol out: {"ready":true} once, then per request {"id",...}: exec →
 *   exitCode, signal, output, stderr (when separate), durationMs; read → data (base64) | error; write → ok | error.
 */

export const ENV_SERVER_PROGRAM = String.raw`
import os, sys, json, signal, selectors, resource, time, base64, ctypes, stat, errno, struct, platform

LIMITS = json.loads(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
    sys.stderr.write("prctl(PR_SET_DUMPABLE, 0) failed\n"); sys.exit(3)
libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
CATCHABLE = [s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP)]
for s in CATCHABLE:
    try: signal.signal(s, signal.SIG_IGN)
    except (OSError, ValueError): pass

# Each command's seccomp filter: prlimit64 only on itself (pid 0). Limits are checked against the uid alone, so
# without it a command could cap this server's address space or CPU time and end the environment as though the
# backend had failed. Other architectures' calls (i386, x32) are refused; an unknown machine refuses to start.
PRLIMIT64 = {"x86_64": (0xC000003E, 302), "aarch64": (0xC00000B7, 261)}
if platform.machine() not in PRLIMIT64:
    sys.stderr.write("seccomp filter: unsupported architecture %s (known: %s)\n" % (platform.machine(), ", ".join(PRLIMIT64))); sys.exit(3)
def seccomp_program():
    arch, nr = PRLIMIT64[platform.machine()]
    allow, eperm = 0x7FFF0000, 0x00050000 | errno.EPERM
    prog = [(0x20, 0, 0, 4), (0x15, 1, 0, arch), (0x06, 0, 0, eperm), (0x20, 0, 0, 0)]
    if arch == 0xC000003E: prog += [(0x45, 0, 1, 0x40000000), (0x06, 0, 0, eperm)]
    # prlimit64 ? (its pid argument == 0 ? allow : EPERM) : allow
    prog += [(0x15, 0, 3, nr), (0x20, 0, 0, 16), (0x15, 1, 0, 0), (0x06, 0, 0, eperm), (0x06, 0, 0, allow)]
    return b"".join(struct.pack("HBBI", *i) for i in prog), len(prog)
SECCOMP_BYTES, SECCOMP_LEN = seccomp_program()
class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
def seccomp_install():
    buf = ctypes.create_string_buffer(SECCOMP_BYTES, len(SECCOMP_BYTES))
    fp = SockFprog(SECCOMP_LEN, ctypes.cast(buf, ctypes.c_void_p))
    PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fp), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "seccomp filter")

sel = selectors.DefaultSelector()
wake_r, wake_w = os.pipe()
os.set_blocking(wake_r, False); os.set_blocking(wake_w, False)
signal.set_wakeup_fd(wake_w)
signal.signal(signal.SIGCHLD, lambda *a: None)
os.set_blocking(0, False)
running = {}   # pid -> exec state
spare = None   # the next command's process, forked and prepared: {"pid", "ctl" (request pipe), "out"}
inbuf = bytearray()

def emit(obj):
    data = (json.dumps(obj) + "\n").encode()
    while data:
        try:
            n = os.write(1, data); data = data[n:]
        except BlockingIOError:
            time.sleep(0.001)

class Tail:
    __slots__ = ("cap", "buf")
    def __init__(self, cap):
        self.cap = cap; self.buf = bytearray()
    def add(self, b):
        self.buf += b
        if len(self.buf) > 2 * self.cap: del self.buf[:len(self.buf) - self.cap]
    def text(self):
        return bytes(self.buf[-self.cap:]).decode("utf-8", "replace") if self.cap > 0 else ""

def prepare(out_w, err_w, keep=None):
    """In a forked child: the command's session, fds, signals and limits; all but its argv, cwd and env.
    stdout to out_w, stderr to err_w; keep: a pipe to read the request from, left open as fd 3."""
    os.setsid()
    fd0 = os.open("/dev/null", os.O_RDONLY)
    os.dup2(fd0, 0); os.dup2(out_w, 1); os.dup2(err_w, 2)
    if keep is None:
        os.closerange(3, 65536)
    else:
        os.dup2(keep, 3); os.closerange(4, 65536)
    signal.set_wakeup_fd(-1)
    for s in CATCHABLE:
        try: signal.signal(s, signal.SIG_DFL)
        except (OSError, ValueError): pass
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (LIMITS["memoryBytes"], LIMITS["memoryBytes"]))
    resource.setrlimit(resource.RLIMIT_NPROC, (LIMITS["maxProcesses"], LIMITS["maxProcesses"]))
    resource.setrlimit(resource.RLIMIT_CPU, (LIMITS["cpuSeconds"], LIMITS["cpuSeconds"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMITS["fileBytes"], LIMITS["fileBytes"]))
    seccomp_install()

def cannot_start(what, e):
    try: os.write(2, ("a2a-bench environment: cannot start %r: %s\n" % (what, e)).encode())
    except BaseException: pass
    os._exit(127 if isinstance(e, FileNotFoundError) else 126)

def child(req, out_w, err_w):
    try:
        prepare(out_w, err_w)
        os.chdir(req["cwd"])
        os.execvpe(req["argv"][0], req["argv"], req["env"])
    except BaseException as e:
        cannot_start(req["argv"][0], e)

def spare_child(out_w, err_w, ctl_r):
    """The spare: prepared now, it reads its request (argv, cwd, env, separate) on fd 3 until EOF, then
    execs; stderr goes to its own pipe when the request keeps the streams apart, else to stdout's."""
    what = "the command"
    try:
        prepare(out_w, err_w, ctl_r)
        chunks = []
        while True:
            b = os.read(3, 65536)
            if not b: break
            chunks.append(b)
        os.close(3)
        if not chunks: os._exit(0)
        req = json.loads(b"".join(chunks))
        if not req["separate"]: os.dup2(1, 2)
        what = req["argv"][0]
        os.chdir(req["cwd"])
        os.execvpe(req["argv"][0], req["argv"], req["env"])
    except BaseException as e:
        cannot_start(what, e)

def make_spare():
    """Fork and prepare the next command's process ahead of its request (after a command, off its path)."""
    global spare
    if spare is not None: return
    fds = []
    try:
        out_r, out_w = os.pipe(); fds += [out_r, out_w]
        err_r, err_w = os.pipe(); fds += [err_r, err_w]
        ctl_r, ctl_w = os.pipe(); fds += [ctl_r, ctl_w]
        pid = os.fork()
    except OSError:
        # The process cap is full (the commands' processes): the next command starts the plain way, or fails so.
        for fd in fds: os.close(fd)
        return
    if pid == 0:
        spare_child(out_w, err_w, ctl_r)
    os.close(out_w); os.close(err_w); os.close(ctl_r)
    os.set_blocking(ctl_w, False)
    spare = {"pid": pid, "ctl": ctl_w, "out": out_r, "err": err_r}

def waiting(pid):
    """Whether the process is alive and not stopped (a command may have sent it SIGSTOP)."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"T", b"t", b"Z", b"X")

def take_spare(req, separate):
    """Hand req to the spare: its (pid, stdout pipe, stderr pipe or None), or None when there is none or it
    cannot take it whole."""
    global spare
    sp, spare = spare, None
    if sp is None: return None
    data = json.dumps({"argv": req["argv"], "cwd": req["cwd"], "env": req["env"], "separate": separate}).encode()
    n = -1
    if waiting(sp["pid"]):
        try:
            n = os.write(sp["ctl"], data)
        except OSError:
            pass   # gone (a command killed it): EPIPE
    os.close(sp["ctl"])
    if n == len(data):
        if separate: return sp["pid"], sp["out"], sp["err"]
        os.close(sp["err"])
        return sp["pid"], sp["out"], None
    # Gone, stopped, or the request does not fit its pipe at once: let it go (reaped as an unknown child).
    try: os.kill(sp["pid"], signal.SIGKILL)
    except OSError: pass
    os.close(sp["out"]); os.close(sp["err"])
    return None

def cannot_fork(req, e):
    # The command's processes fill the environment's process cap (or its fds): the command's failure, not ours.
    emit({"id": req["id"], "exitCode": 126, "signal": None, "durationMs": 0,
          "output": "a2a-bench environment: cannot start the command: %s\n" % e})

def start_exec(req):
    t0 = time.monotonic()
    separate = req.get("separate") is True
    taken = take_spare(req, separate)
    if taken is not None:
        pid, r, er = taken
    else:
        fds = []
        try:
            r, w = os.pipe(); fds += [r, w]
            if separate:
                er, ew = os.pipe(); fds += [er, ew]
            else:
                er, ew = None, w
            pid = os.fork()
        except OSError as e:
            for fd in fds: os.close(fd)
            cannot_fork(req, e)
            return
        if pid == 0:
            os.close(r)
            if er is not None: os.close(er)
            child(req, w, ew)
        os.close(w)
        if er is not None: os.close(ew)
    cap = int(req["maxOutputBytes"])
    st = {"id": req["id"], "pid": pid, "t0": t0, "done": False, "separate": separate,
          "fds": {"out": r}, "tails": {"out": Tail(cap)}}
    if er is not None:
        st["fds"]["err"] = er; st["tails"]["err"] = Tail(cap)
    for which, fd in st["fds"].items():
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ, (st, which))
    running[pid] = st

def drain(st, which, limit=None):
    """Read what one of the command's pipes holds now (at most limit bytes); close it at EOF."""
    got = 0
    while which in st["fds"] and (limit is None or got < limit):
        fd = st["fds"][which]
        try:
            b = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            b = b""
        if not b:
            sel.unregister(fd); os.close(fd); del st["fds"][which]
            return
        got += len(b)
        if not st["done"]: st["tails"][which].add(b)

def finish(st, status):
    # Everything the command's own process wrote is in the pipe by now; writers it left are not waited for.
    for which in list(st["fds"]):
        drain(st, which, 4 * st["tails"][which].cap + 65536)
    res = {"id": st["id"], "exitCode": None, "signal": None, "durationMs": int((time.monotonic() - st["t0"]) * 1000),
           "output": st["tails"]["out"].text()}
    if st["separate"]: res["stderr"] = st["tails"]["err"].text()
    if os.WIFEXITED(status): res["exitCode"] = os.WEXITSTATUS(status)
    elif os.WIFSIGNALED(status):
        n = os.WTERMSIG(status)
        res["exitCode"] = 128 + n
        try: res["signal"] = signal.Signals(n).name
        except ValueError: res["signal"] = str(n)
    st["done"] = True
    st["tails"] = None
    emit(res)
    make_spare()

def reap():
    global spare
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0: return
        if spare is not None and pid == spare["pid"]:
            # The spare died waiting (a command killed it): the next command starts the plain way.
            os.close(spare["ctl"]); os.close(spare["out"]); os.close(spare["err"])
            spare = None
            continue
        st = running.pop(pid, None)
        if st is not None: finish(st, status)

def regular(fd, path):
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise OSError(errno.EINVAL, "not a regular file (a FIFO, a device or a directory)", path)

def read_file(req):
    fd = os.open(req["path"], os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        regular(fd, req["path"])
        cap = int(req["max"]); chunks = []; n = 0
        while n <= cap:
            b = os.read(fd, min(1 << 20, cap + 1 - n))
            if not b: break
            chunks.append(b); n += len(b)
        if n > cap: raise OSError(errno.EFBIG, "larger than %d bytes" % cap, req["path"])
        return base64.b64encode(b"".join(chunks)).decode()
    finally:
        os.close(fd)

def write_file(req):
    data = base64.b64decode(req["data"])
    parent = os.path.dirname(req["path"])
    if parent: os.makedirs(parent, exist_ok=True)
    fd = os.open(req["path"], os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, 0o644)
    try:
        regular(fd, req["path"])
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view: view = view[os.write(fd, view):]
    finally:
        os.close(fd)

def handle(line):
    req = json.loads(line)
    op = req.get("op")
    if op == "exec":
        start_exec(req)
        return
    try:
        if op == "read": emit({"id": req["id"], "data": read_file(req)})
        elif op == "write": write_file(req); emit({"id": req["id"], "ok": True})
        else: emit({"id": req.get("id"), "error": "unknown op %r" % op})
    except Exception as e:
        emit({"id": req["id"], "error": str(e)})

sel.register(0, selectors.EVENT_READ, "stdin")
sel.register(wake_r, selectors.EVENT_READ, "wake")
emit({"ready": True})
make_spare()
while True:
    for key, _ in sel.select(None):
        if key.data == "wake":
            try:
                while os.read(wake_r, 512): pass
            except BlockingIOError:
                pass
        elif key.data == "stdin":
            try:
                b = os.read(0, 1 << 20)
            except BlockingIOError:
                continue
            if not b:
                # The owner closed us or died: leaving ends the namespace and everything in it.
                os._exit(0)
            inbuf += b
            while True:
                i = inbuf.find(b"\n")
                if i < 0: break
                line = bytes(inbuf[:i]); del inbuf[:i + 1]
                if line.strip(): handle(line)
        else:
            drain(key.data[0], key.data[1], 1 << 20)
    reap()
`;
