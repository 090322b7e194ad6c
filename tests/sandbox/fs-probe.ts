/**
 * The job program of the filesystem-view tests: it lists what it can see
 * and read, and tries the paths a participant would want. Shared by the
 * local, docker and e2b tests. Python 3 only (every backend has it).
 *
 * Input: env A2A_PROBE = JSON {sensitive: [path], skip: [path], marker?: string}.
 * Output: one line `A2A_PROBE_RESULT:{...}` with
 *   top      names in / ;  etc  names in /etc ;
 *   readable every file it could open outside `skip` (walked, symlinks not followed, capped);
 *   leaks    the sensitive paths it could open: a file → true, a directory → the names it lists;
 *   marker   paths whose name contains `marker` that it found (by walking, or through /proc/<pid>/cwd).
 */
export const FS_PROBE = String.raw`
import json, os
cfg = json.loads(os.environ["A2A_PROBE"])
skip = set(cfg["skip"])
marker = cfg.get("marker")
def opens(p):
    try:
        if os.path.isdir(p):
            os.listdir(p)
        else:
            with open(p, "rb") as f:
                f.read(1)
        return True
    except OSError:
        return False
top = sorted(os.listdir("/"))
etc = sorted(os.listdir("/etc")) if opens("/etc") else []
readable, hits = [], []
for t in top:
    p = "/" + t
    if p in skip or os.path.islink(p):
        continue
    for base, dirs, files in os.walk(p):
        dirs[:] = [d for d in dirs if os.path.join(base, d) not in skip and not os.path.islink(os.path.join(base, d))]
        for f in files:
            fp = os.path.join(base, f)
            if marker and marker in f:
                hits.append(fp)
            if len(readable) < 20000 and opens(fp):
                readable.append(fp)
if marker:
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for f in os.listdir("/proc/%s/cwd" % pid):
                if marker in f:
                    hits.append("/proc/%s/cwd/%s" % (pid, f))
        except OSError:
            pass
leaks = {}
for p in cfg["sensitive"]:
    if os.path.isdir(p) and opens(p):
        leaks[p] = sorted(os.listdir(p))
    elif opens(p):
        leaks[p] = True
print("A2A_PROBE_RESULT:" + json.dumps({"top": top, "etc": etc, "readable": readable, "leaks": leaks, "marker": hits}))
`;

export interface ProbeResult {
  top: string[];
  etc: string[];
  readable: string[];
  leaks: Record<string, true | string[]>;
  marker: string[];
}

/** Parse the probe's result line out of a job's stdout (throws with the output when it is missing). */
export function probeResult(stdout: string, stderr = ""): ProbeResult {
  const line = stdout.split("\n").find((l) => l.startsWith("A2A_PROBE_RESULT:"));
  if (line === undefined)
    throw new Error(`no probe result; stdout: ${stdout.slice(-500)} stderr: ${stderr.slice(-1500)}`);
  return JSON.parse(line.slice("A2A_PROBE_RESULT:".length)) as ProbeResult;
}

/**
 * A job that holds a file named after `marker` in its own directory for `seconds`, so that a concurrent
 * job can look for it. Prints "holding" once the file is there.
 */
export const holderProgram = (marker: string, seconds: number): string =>
  `import os, time\nopen(${JSON.stringify(marker + "-secret.txt")}, "w").write("gold answer")\nprint("holding", os.getcwd(), flush=True)\ntime.sleep(${seconds})\n`;

/**
 * The sensitive paths that really leaked: a file that opened, or a directory listing more than the path
 * components leading to the job's own dirs (a work dir bound below the hidden checkout makes its parents
 * exist as empty mount points) — an empty masked directory lists nothing and is no leak.
 */
export function realLeaks(leaks: ProbeResult["leaks"], ownDirs: readonly string[]): string[] {
  const out: string[] = [];
  for (const [path, got] of Object.entries(leaks)) {
    if (got === true) {
      out.push(path);
      continue;
    }
    const ways = new Set(
      ownDirs.filter((d) => d.startsWith(path + "/")).map((d) => d.slice(path.length + 1).split("/")[0]!),
    );
    const extra = got.filter((n) => !ways.has(n));
    if (extra.length > 0) out.push(`${path}: ${extra.join(", ")}`);
  }
  return out;
}
