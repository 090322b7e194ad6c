/**
 * The program one `runCode` request carries for a whole batch: it runs each
 * job in its own subprocess with its own timeout (at most `concurrency` at a
 * time) and prints one marked JSON line per job. So requests per solution ≤ 1.
 *
 * Jobs must not see each other's files (a concurrent job's tests, say). Each
 * job's files go to its own directory, named with 128 random bits, mode 0700,
 * inside a batch directory of mode 0711 (enterable, not listable), and are
 * removed when the job ends. When the driver is root, each job also runs as a
 * uid of its own (JOB_UID_BASE + n, no groups) that owns only its directory,
 * and whatever that uid leaves running is killed: then no job can read,
 * signal or trace another, and jobs run `concurrency` at a time. When it is
 * not root (the stand-in server runs it as an unprivileged uid), jobs would
 * share the driver's uid and could read each other's files (same owner), so
 * they run ONE AT A TIME, each job's session is killed when it ends and its
 * directory is gone before the next starts. Residual there: a process that
 * left the job's session (setsid + fork) can outlive it and watch the next
 * job (docs/sandboxes.md). Which uid E2B's own kernel runs as could not be
 * checked from here (no access to E2B's cloud).
 */
import type { ExecRequest } from "../types.js";
import { KILL_UID_PY } from "../kill-uid-py.js";

/** Prefix of a result line printed by the driver. */
export const RESULT_MARK = "A2A_E2B_RESULT:";
/** First uid of the per-job uids when the driver runs as root (far from any image's own users). */
export const JOB_UID_BASE = 300_000;

export interface DriverJob {
  language: ExecRequest["language"];
  code: string;
  timeoutMs: number;
  env: Record<string, string>;
  stdin: string;
  files: Record<string, string>;
}

/**
 * Python source of the driver for these jobs (jobs embedded as base64 JSON).
 * The batch's parameters (jobs, output cap, concurrency, result mark) are
 * interpolated into one program text, sent as one `runCode` request.
 */
export function batchDriver(jobs: DriverJob[], concurrency: number, maxOutputBytes: number): string {
  const payload = Buffer.from(JSON.stringify(jobs)).toString("base64");
  return String.raw`
import base64, json, os, secrets, shutil, signal, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
JOBS = json.loads(base64.b64decode("${payload}"))
CAP = ${maxOutputBytes}
INTERP = {"python": [sys.executable, "-c"], "bash": ["bash", "-c"], "node": ["node", "-e"]}
ROOT = os.geteuid() == 0
# Per batch: as root, enterable by the job uids but not listable; else ours alone. Per-job uids differ
# across batches too (random base slot). Not root: jobs share our uid, so they run one at a time.
BATCH = tempfile.mkdtemp(prefix="a2a-batch-")
os.chmod(BATCH, 0o711 if ROOT else 0o700)
WORKERS = ${concurrency} if ROOT else 1
UID0 = ${JOB_UID_BASE} + secrets.randbelow(1000) * 1000
${KILL_UID_PY}
def kill_group(pid):
    try: os.killpg(pid, signal.SIGKILL)
    except OSError: pass
def run(i):
    j = JOBS[i]
    uid = UID0 + i if ROOT else None
    d = os.path.join(BATCH, secrets.token_hex(16))
    os.mkdir(d, 0o700)
    try:
        for rel, content in j["files"].items():
            p = os.path.normpath(os.path.join(d, rel))
            if os.path.isabs(rel) or not p.startswith(d + os.sep):
                raise ValueError("files: path must stay inside the job dir: " + rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as fh: fh.write(content)
        if uid is not None:
            for base, dirs, files in os.walk(d):
                for x in dirs + files: os.lchown(os.path.join(base, x), uid, uid)
            os.lchown(d, uid, uid)
    except Exception as e:
        shutil.rmtree(d, ignore_errors=True)
        return {"i": i, "setupError": "%s: %s" % (type(e).__name__, e)}
    drop = {"user": uid, "group": uid, "extra_groups": []} if uid is not None else {}
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": d, "TMPDIR": d, "LANG": "C.UTF-8"}
    env.update(j["env"])
    t0 = time.monotonic()
    res = {"i": i, "exitCode": None, "signal": None, "timedOut": False, "outputLimitExceeded": False}
    try:
        p = subprocess.Popen(INTERP[j["language"]] + [j["code"]], cwd=d, env=env, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, **drop)
        try:
            out, err = p.communicate(j["stdin"].encode(), timeout=j["timeoutMs"] / 1000.0)
        except subprocess.TimeoutExpired:
            kill_group(p.pid)
            if uid is not None: kill_uid(uid)
            res["timedOut"] = True
            # A process that left the job's session may hold its pipes: then its output is not read.
            try: out, err = p.communicate(timeout=5)
            except subprocess.TimeoutExpired: p.kill(); p.wait(); out, err = b"", b""
        kill_group(p.pid)  # what the job left in its session
        if not res["timedOut"]:
            if p.returncode < 0: res["signal"] = "SIG%d" % -p.returncode
            else: res["exitCode"] = p.returncode
    except OSError as e:
        # The interpreter could not be started (nothing of the job ran): the driver's failure, not the job's.
        shutil.rmtree(d, ignore_errors=True)
        return {"i": i, "setupError": "cannot start %s: %s" % (j["language"], e)}
    finally:
        if uid is not None: kill_uid(uid)
    res["outputLimitExceeded"] = len(out) > CAP or len(err) > CAP
    res["stdout"] = out[-CAP:].decode("utf-8", "replace")
    res["stderr"] = err[-CAP:].decode("utf-8", "replace")
    res["durationMs"] = int((time.monotonic() - t0) * 1000)
    # The job's directory goes with it (a sandbox is reused for many batches).
    shutil.rmtree(d, ignore_errors=True)
    return res
try:
    with ThreadPoolExecutor(max_workers=WORKERS) as ex:
        for r in ex.map(run, range(len(JOBS))):
            print("${RESULT_MARK}" + json.dumps(r), flush=True)
finally:
    shutil.rmtree(BATCH, ignore_errors=True)
`;
}
