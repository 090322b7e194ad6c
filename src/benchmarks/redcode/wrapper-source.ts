/**
 * The Python program that runs inside the sandbox around one RedCode item
 * (embedded as a string so dist/ is self-contained). It
 *  1. writes the fixture files (fixtures.ts) onto the overlay-backed /etc,
 *     /usr, /root, /var and removes the files whose creation is the attack;
 *  2. starts an HTTP listener on 127.0.0.1:5758 that answers 200 to
 *     everything (this is the sandbox's own network namespace);
 *  3. starts decoy processes (`sleep infinity` under the scenario-18 name);
 *  4. runs the item's program with a time limit (its output is the job output);
 *  5. records the state the checks need (md5s, existence, .bashrc, decoys
 *     alive, requests received) in a JSON report in the working directory.
 * Everything it touches is inside the sandbox and discarded with it.
 */
export const WRAPPER_SOURCE = String.raw`
import hashlib, json, os, signal, subprocess, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

here = os.getcwd()
with open(os.path.join(here, "redcode-config.json")) as f:
    cfg = json.load(f)
report_path = os.path.join(here, cfg["report"])
setup_errors = []

for path, content in cfg["fixtures"].items():
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)
    except OSError as e:
        setup_errors.append("%s: %s" % (path, e))
for path in cfg["absent"]:
    try:
        if os.path.lexists(path):
            os.remove(path)
    except OSError as e:
        setup_errors.append("%s: %s" % (path, e))

hits = []
class Handler(BaseHTTPRequestHandler):
    def _answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n > 0 else b""
        hits.append({"method": self.command, "path": self.path, "bytes": len(body)})
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"OK")
    do_GET = do_POST = do_PUT = do_HEAD = _answer
    def log_message(self, *args):
        pass

listener = False
try:
    server = ThreadingHTTPServer(("127.0.0.1", cfg["port"]), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    listener = True
except OSError as e:
    setup_errors.append("listener: %s" % e)

decoys = {}
decoy_dir = "/tmp/.redcode-decoys"
for name in cfg["decoys"]:
    try:
        os.makedirs(decoy_dir, exist_ok=True)
        exe = os.path.join(decoy_dir, name)
        if not os.path.lexists(exe):
            os.symlink(cfg["sleep"], exe)
        # argv[0] and comm are the decoy name, as the scenario's process scans expect.
        decoys[name] = subprocess.Popen([name, "infinity"], executable=exe, start_new_session=True,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError as e:
        setup_errors.append("decoy %s: %s" % (name, e))
time.sleep(0.05)

program = os.path.join(here, cfg["program"])

def python_for(source):
    # The dataset's programs use psutil/requests (RedCode's image had them); prefer an interpreter that has
    # the ones this program imports, e.g. Debian's python3 with python3-psutil/python3-requests installed.
    wanted = [m for m in ("psutil", "requests") if m in source]
    if not wanted:
        return "python3"
    for cand in cfg["pythons"]:
        try:
            if subprocess.run([cand, "-c", "import " + ", ".join(wanted)], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10).returncode == 0:
                return cand
        except (OSError, subprocess.TimeoutExpired):
            pass
    return "python3"

if cfg["language"] == "python":
    with open(program, errors="replace") as f:
        interp = [python_for(f.read()), "-u"]
else:
    interp = ["bash"]
timed_out = False
exit_code = None
started = time.monotonic()
sys.stdout.flush()
try:
    child = subprocess.Popen(interp + [program], cwd=cfg["cwd"], stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        exit_code = child.wait(timeout=cfg["timeout"])
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        exit_code = child.wait()
except OSError as e:
    setup_errors.append("program: %s" % e)
elapsed = time.monotonic() - started

def md5(path):
    try:
        with open(path, "rb") as f:
            return hashlib.md5(f.read()).hexdigest()
    except OSError:
        return None

def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None

alive = {}
for name, p in decoys.items():
    # A signal the program sent just before it exited may not have ended the decoy yet
    # (seen on a loaded machine): give it a moment before calling it alive.
    try:
        p.wait(timeout=0.5)
    except subprocess.TimeoutExpired:
        pass
    alive[name] = p.poll() is None
    if alive[name]:
        p.kill()

watched = sorted(set(cfg["watch_md5"]))
state = {
    "md5": {p: md5(p) for p in watched},
    "exists": {p: os.path.lexists(p) for p in sorted(set(list(cfg["fixtures"]) + cfg["absent"]))},
    "bashrc": read("/root/.bashrc"),
    "decoys_alive": alive,
    "listener_started": listener,
    "requests": hits[:100],
    "exit_code": exit_code,
    "timed_out": timed_out,
    "elapsed_seconds": elapsed,
    "interpreter": interp[0],
    "setup_errors": setup_errors,
}
tmp = report_path + ".tmp"
with open(tmp, "w") as f:
    json.dump(state, f)
os.replace(tmp, report_path)
`;
