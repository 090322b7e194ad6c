/**
 * The program one `runCode` request carries for a whole batch: it runs each
 * job in its own subprocess with its own timeout (at most `concurrency` at a
 * time) and prints one marked JSON line per job. So requests per solution ≤ 1.
 *
 * Pass proof (jobs with a `proof` token; python and node): the job's program
 * is written to a file and started by the same wrappers as the local
 * per-exec sandbox (proof-wrappers.ts); the token reaches the wrapper through
 * a pipe on fd 4 and the proof comes back on fd 3, both private to that job's
 * process; the driver relays the bytes in the job's result line (a job's own
 * output is captured apart and cannot print result lines) and the node side
 * judges them. What this proves on E2B is weaker than locally: jobs run under
 * the same uid as the driver, which holds every token of the batch; the
 * driver makes itself non-dumpable (best effort) so a job cannot read its
 * memory through /proc or ptrace, but E2B gives no seccomp filter or per-job
 * uid here. It proves "did not exit, crash or get killed before the end".
 */
import type { ExecRequest } from "../types.js";
import { NODE_PROOF_WRAPPER, PYTHON_PROOF_WRAPPER } from "../local/proof-wrappers.js";

/** Prefix of a result line printed by the driver. */
export const RESULT_MARK = "A2A_E2B_RESULT:";

export interface DriverJob {
  language: ExecRequest["language"];
  code: string;
  timeoutMs: number;
  env: Record<string, string>;
  stdin: string;
  files: Record<string, string>;
  /** Pass-proof token, or null when the job did not ask for one. */
  proof: string | null;
}

/**
 * Python source of the driver for these jobs (jobs embedded as base64 JSON).
 * The batch's parameters (jobs, wrappers, output cap, concurrency, result mark)
 * are interpolated into one program text, sent as one `runCode` request.
 */
// eslint-disable-next-line max-lines-per-function -- the body is one embedded Python program (its lines, not TS logic); cutting it into fragments would scatter one program across string pieces
export function batchDriver(jobs: DriverJob[], concurrency: number, maxOutputBytes: number): string {
  const payload = Buffer.from(JSON.stringify(jobs)).toString("base64");
  const wrappers = Buffer.from(JSON.stringify({ python: PYTHON_PROOF_WRAPPER, node: NODE_PROOF_WRAPPER })).toString(
    "base64",
  );
  return String.raw`
import base64, fcntl, json, os, shutil, subprocess, sys, tempfile, time, threading
from concurrent.futures import ThreadPoolExecutor
try:
    import ctypes
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: jobs cannot read the tokens from our memory
except Exception:
    pass
JOBS = json.loads(base64.b64decode("${payload}"))
# fds 3 and 4 stay taken (by /dev/null) for the driver's whole life: subprocess marks pass_fds (3, 4)
# inheritable in the child before preexec_fn moves the job's pipes there, and fails with EBADF when a
# slot happens to be free at that moment (another thread just closed a pipe that had that number).
_held = []
while True:
    _fd = os.open(os.devnull, os.O_RDONLY)
    if _fd > 4:
        os.close(_fd)
        break
    _held.append(_fd)
WRAP = json.loads(base64.b64decode("${wrappers}"))
CAP = ${maxOutputBytes}
INTERP = {"python": [sys.executable, "-c"], "bash": ["bash", "-c"], "node": ["node", "-e"]}
EXT = {"python": "py", "node": "js"}
def proved(j, d):
    """argv, fds to keep and the proof reader for a job with a token (None: no proof for it)."""
    if j["proof"] is None or j["language"] not in EXT: return None
    path = os.path.join(d, ".a2a-main." + EXT[j["language"]])
    with open(path, "w") as fh: fh.write(j["code"])
    interp = sys.executable if j["language"] == "python" else "node"
    flag = "-c" if j["language"] == "python" else "-e"
    tok_r, tok_w = os.pipe(); pr_r, pr_w = os.pipe()
    def fds():
        # Runs in the child before close_fds: copies above 9 first, so 3 and 4 are set from the right pipes.
        a, b = fcntl.fcntl(tok_r, fcntl.F_DUPFD, 10), fcntl.fcntl(pr_w, fcntl.F_DUPFD, 10)
        os.dup2(b, 3); os.dup2(a, 4); os.close(a); os.close(b)
    return [interp, flag, WRAP[j["language"]], path], fds, (tok_r, tok_w, pr_r, pr_w)
def run(i):
    j = JOBS[i]
    d = tempfile.mkdtemp(prefix="job-")
    for rel, content in j["files"].items():
        p = os.path.join(d, rel); os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as fh: fh.write(content)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": d, "LANG": "C.UTF-8"}
    env.update(j["env"])
    t0 = time.monotonic()
    res = {"i": i, "exitCode": None, "signal": None, "timedOut": False, "outputLimitExceeded": False}
    pr = proved(j, d)
    proof = []
    try:
        if pr is None:
            p = subprocess.run(INTERP[j["language"]] + [j["code"]], cwd=d, env=env, input=j["stdin"].encode(),
                               capture_output=True, timeout=j["timeoutMs"] / 1000.0)
        else:
            argv, fds, (tok_r, tok_w, pr_r, pr_w) = pr
            def feed():
                os.write(tok_w, j["proof"].encode()); os.close(tok_w)
            def collect():
                while True:
                    b = os.read(pr_r, 4096)
                    if not b or sum(map(len, proof)) > 4096: break
                    proof.append(b)
            t1 = threading.Thread(target=feed); t2 = threading.Thread(target=collect)
            t1.start(); t2.start()
            try:
                p = subprocess.run(argv, cwd=d, env=env, input=j["stdin"].encode(), capture_output=True,
                                   timeout=j["timeoutMs"] / 1000.0, pass_fds=(3, 4), preexec_fn=fds)
            finally:
                os.close(tok_r); os.close(pr_w); t1.join(); t2.join(1); os.close(pr_r)
        out, err = p.stdout, p.stderr
        if p.returncode < 0: res["signal"] = "SIG%d" % -p.returncode
        else: res["exitCode"] = p.returncode
    except subprocess.TimeoutExpired as e:
        out, err = e.stdout or b"", e.stderr or b""
        res["timedOut"] = True
    res["outputLimitExceeded"] = len(out) > CAP or len(err) > CAP
    res["stdout"] = out[-CAP:].decode("utf-8", "replace")
    res["stderr"] = err[-CAP:].decode("utf-8", "replace")
    res["durationMs"] = int((time.monotonic() - t0) * 1000)
    if pr is not None: res["proof"] = b"".join(proof)[:4096].decode("latin-1")
    # The job's directory goes with it (a sandbox is reused for many batches).
    shutil.rmtree(d, ignore_errors=True)
    return res
with ThreadPoolExecutor(max_workers=${concurrency}) as ex:
    for r in ex.map(run, range(len(JOBS))):
        print("${RESULT_MARK}" + json.dumps(r), flush=True)
`;
}
