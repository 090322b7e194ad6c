/**
 * The program one `runCode` request carries for a whole batch: it runs each
 * job in its own subprocess with its own timeout (at most `concurrency` at a
 * time) and prints one marked JSON line per job. So requests per solution ≤ 1.
 */
import type { ExecRequest } from "../types.js";

/** Prefix of a result line printed by the driver. */
export const RESULT_MARK = "A2A_E2B_RESULT:";

export interface DriverJob {
  language: ExecRequest["language"];
  code: string;
  timeoutMs: number;
  env: Record<string, string>;
  stdin: string;
  files: Record<string, string>;
}

/** Python source of the driver for these jobs (jobs embedded as base64 JSON). */
export function batchDriver(jobs: DriverJob[], concurrency: number, maxOutputBytes: number): string {
  const payload = Buffer.from(JSON.stringify(jobs)).toString("base64");
  return String.raw`
import base64, json, os, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
JOBS = json.loads(base64.b64decode("${payload}"))
CAP = ${maxOutputBytes}
INTERP = {"python": [sys.executable, "-c"], "bash": ["bash", "-c"], "node": ["node", "-e"]}
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
    try:
        p = subprocess.run(INTERP[j["language"]] + [j["code"]], cwd=d, env=env, input=j["stdin"].encode(),
                           capture_output=True, timeout=j["timeoutMs"] / 1000.0)
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
    return res
with ThreadPoolExecutor(max_workers=${concurrency}) as ex:
    for r in ex.map(run, range(len(JOBS))):
        print("${RESULT_MARK}" + json.dumps(r), flush=True)
`;
}
