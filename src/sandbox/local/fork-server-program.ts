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
 * Protocol in:  {"op":"run","id":N,"code":str,"timeoutMs":n,"env":{},"stdin":str|null,
 *                "files":{rel:str},"limits":{"memoryBytes","maxProcesses","cpuSeconds","maxOutputBytes"}}
 *               {"op":"cancel","id":N}
 * Protocol out: {"ready":true} once, then per job {"id","exitCode","signal","timedOut","canceled",
 *                "outputLimitExceeded","durationMs","stdout","stderr","infraError"?}
 */
export const FORK_SERVER_PROGRAM = String.raw`
import os, sys, json, signal, selectors, resource, time, shutil, traceback, ctypes, errno

ROOT = sys.argv[1]
# Modules solutions commonly import are loaded once here, so forked jobs find them ready.
import importlib, gc
for _m in ("math", "re", "collections", "itertools", "functools", "hashlib", "string", "heapq", "bisect",
           "random", "statistics", "fractions", "decimal", "typing", "copy", "operator", "unittest"):
    try: importlib.import_module(_m)
    except Exception: pass
PR_SET_CHILD_SUBREAPER = 36
try:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
except Exception:
    pass

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

def child(job, d, out_w, err_w, in_r):
    code = 1
    try:
        os.setsid()
        os.dup2(in_r, 0); os.dup2(out_w, 1); os.dup2(err_w, 2)
        os.closerange(3, 65536)
        for s in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM):
            signal.signal(s, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        lim = job["limits"]
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CPU, (lim["cpuSeconds"], lim["cpuSeconds"]))
        resource.setrlimit(resource.RLIMIT_NPROC, (lim["maxProcesses"], lim["maxProcesses"]))
        resource.setrlimit(resource.RLIMIT_AS, (lim["memoryBytes"], lim["memoryBytes"]))
        os.chdir(d)
        os.environ.clear(); os.environ.update(job.get("env") or {})
        sys.stdin = open(0, "r", closefd=False)
        sys.stdout = open(1, "w", closefd=False)
        sys.stderr = open(2, "w", closefd=False)
        sys.argv = ["solution.py"]
        sys.path.insert(0, d)
        src = job["code"]
        job.clear(); by_id.clear(); jobs.clear(); inbuf.clear()
        g = {"__name__": "__main__", "__builtins__": __builtins__, "__file__": os.path.join(d, "solution.py")}
        try:
            exec(compile(src, "solution.py", "exec"), g)
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

def start(job):
    global seq
    seq += 1
    d = os.path.join(ROOT, "job-%d" % seq)
    try:
        os.mkdir(d, 0o700)
        for rel, content in (job.get("files") or {}).items():
            if not safe_rel(rel):
                raise ValueError("file path must be relative and stay inside the job dir: %r" % rel)
            p = os.path.join(d, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as fh: fh.write(content)
        out_r, out_w = os.pipe(); err_r, err_w = os.pipe(); in_r, in_w = os.pipe()
    except Exception as e:
        shutil.rmtree(d, ignore_errors=True)
        emit({"id": job["id"], "infraError": "job setup: %s" % e})
        return
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.close(out_r); os.close(err_r); os.close(in_w)
        child(job, d, out_w, err_w, in_r)
    os.close(out_w); os.close(err_w); os.close(in_r)
    data = (job.get("stdin") or "").encode()
    try:
        if len(data) < 65536:
            os.write(in_w, data)
    except OSError:
        pass
    os.close(in_w)
    cap = job["limits"]["maxOutputBytes"]
    st = {"id": job["id"], "pid": pid, "dir": d, "t0": time.monotonic(),
          "deadline": time.monotonic() + job["timeoutMs"] / 1000.0,
          "out": Tail(cap), "err": Tail(cap), "fds": {out_r: "out", err_r: "err"},
          "reason": None, "status": None}
    for fd in (out_r, err_r):
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
        if st[which].add(b):
            kill(st, "output")

def kill_orphans():
    # Anything reparented to us that is not a job leader escaped its group: kill it.
    me = str(os.getpid())
    for p in os.listdir("/proc"):
        if not p.isdigit(): continue
        try:
            with open("/proc/%s/stat" % p) as fh:
                ppid = fh.read().rsplit(")", 1)[1].split()[1]
        except OSError:
            continue
        if ppid == me and int(p) not in jobs:
            try: os.kill(int(p), signal.SIGKILL)
            except OSError: pass

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
    by_id.pop(st["id"], None)
    shutil.rmtree(st["dir"], ignore_errors=True)
    emit(res)

def reap():
    done = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0: break
        st = jobs.pop(pid, None)
        if st is not None:
            st["status"] = status
            try: os.killpg(pid, signal.SIGKILL)  # helpers left in the job's group
            except OSError: pass
            done.append(st)
    if done:
        kill_orphans()
        for st in done: finish(st)

def handle_line(line):
    msg = json.loads(line)
    if msg.get("op") == "run":
        start(msg)
    elif msg.get("op") == "cancel":
        st = by_id.get(msg["id"])
        if st is not None and st["status"] is None: kill(st, "cancel")

sel.register(0, selectors.EVENT_READ, ("stdin", None))
sel.register(wake_r, selectors.EVENT_READ, ("wake", None))
gc.freeze()  # keep the preloaded heap shared copy-on-write across forks
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
# Stdin closed and every job reaped: the owner closed us or died. Outside bwrap
# ROOT is a host directory made for this server alone; remove it (if empty) so
# an owner killed by SIGKILL leaves nothing behind.
if ROOT != "/tmp":
    try: os.rmdir(ROOT)
    except OSError: pass
`;
