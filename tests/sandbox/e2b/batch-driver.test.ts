/**
 * Jobs of one E2B batch do not see each other's files. The batch driver runs here with the host's
 * /usr/bin/python3 (E2B's cloud is not reachable from this machine): as root, the way it runs per-job
 * uids, and as an unprivileged uid, where jobs share one uid (docs/sandboxes.md, "What is NOT contained").
 */
import { describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { batchDriver, RESULT_MARK, type DriverJob } from "../../../src/sandbox/e2b/batch-driver.js";
import { FS_PROBE, holderProgram, probeResult } from "../fs-probe.js";

const PYTHON = "/usr/bin/python3";
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));
const isRoot = process.getuid?.() === 0;

/** A holder job and a probe job started together; the probe looks for the holder's file while it exists. */
function jobs(marker: string): DriverJob[] {
  const job = (code: string, env: Record<string, string> = {}): DriverJob => ({
    language: "python",
    code,
    timeoutMs: 20_000,
    env,
    stdin: "",
    files: { "own.txt": "mine" },
  });
  const probe = `import os, time\ntime.sleep(0.7)\nparent = os.path.dirname(os.getcwd())\ntry:\n    print("LISTED", os.listdir(parent))\nexcept OSError as e:\n    print("UNLISTABLE", e.errno)\n${FS_PROBE}`;
  return [
    job(holderProgram(marker, 2)),
    job(probe, {
      // The host's whole tree is no job's business here: walk /tmp, where the driver puts every job.
      A2A_PROBE: JSON.stringify({
        sensitive: [],
        marker,
        // ...and there only what appeared after the test started (the driver's job root among it): whatever
        // else a machine keeps in /tmp (a clone with its node_modules) would only flood the probe's output.
        skip: [
          ...readdirSync("/")
            .filter((e) => e !== "tmp")
            .map((e) => `/${e}`),
          ...readdirSync("/tmp").map((e) => `/tmp/${e}`),
        ],
      }),
    }),
  ];
}

function runDriver(asUid: number | null, marker: string): Array<Record<string, unknown>> {
  const code = batchDriver(jobs(marker), 2, 1 << 20);
  const argv =
    asUid === null
      ? [PYTHON, "-c", code]
      : [SETPRIV!, `--reuid=${asUid}`, `--regid=${asUid}`, "--clear-groups", PYTHON, "-c", code];
  const out = execFileSync(argv[0]!, argv.slice(1), {
    encoding: "utf8",
    timeout: 60_000,
    cwd: "/",
    maxBuffer: 64 << 20,
  });
  return out
    .split("\n")
    .filter((l) => l.startsWith(RESULT_MARK))
    .map((l) => JSON.parse(l.slice(RESULT_MARK.length)) as Record<string, unknown>);
}

describe.skipIf(!existsSync(PYTHON))("e2b batch driver: a job cannot read a concurrent job's files", () => {
  test.skipIf(!isRoot)(
    "as root: each job has its own uid; the sibling's dir is unlistable and unfindable, even through /proc",
    () => {
      const marker = `a2a-mark-${process.pid}-root`;
      const [holder, probe] = runDriver(null, marker);
      expect(String(holder!["stdout"])).toMatch(/^holding \/tmp\/a2a-batch-[^/]+\/[0-9a-f]{32}\n$/);
      expect(String(probe!["stdout"])).toMatch(/^UNLISTABLE 13\n/);
      const r = probeResult(String(probe!["stdout"]));
      expect(r.marker).toEqual([]);
      const dir = String(holder!["stdout"]).trim().split(" ")[1]!;
      expect(existsSync(dir)).toBe(false); // removed with its job
    },
  );

  test.skipIf(!isRoot || !SETPRIV)(
    "unprivileged: jobs share a uid, so they run one at a time; each finds nothing of the previous one",
    () => {
      const marker = `a2a-mark-${process.pid}-user`;
      const [holder, probe] = runDriver(65534, marker);
      const own = String(probe!["stdout"]).match(/^LISTED \['([0-9a-f]{32})'\]\n/);
      expect(own, String(probe!["stdout"]).slice(0, 300)).not.toBeNull(); // the batch dir holds its own dir only
      const r = probeResult(String(probe!["stdout"]));
      expect(r.marker).toEqual([]);
      expect(existsSync(String(holder!["stdout"]).trim().split(" ")[1]!)).toBe(false);
    },
  );
});
