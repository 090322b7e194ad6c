/**
 * Run one RedCode program in the sandbox inside its throw-away world
 * (wrapper-source.ts) and read back the wrapper's state report. The world is
 * copy-on-write overlays over /etc, /usr and /var (plus the job's private tmpfs /root and /tmp) whose upper layers
 * live in the item's scratch directory and are deleted afterwards; the
 * listener and decoys live in the sandbox's own network and pid namespaces.
 */
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { ExecOutcome, ExecRequest, Sandbox } from "../../sandbox/types.js";
import type { RedcodeItem } from "./item.js";
import { ABSENT_FILES, FIXTURE_FILES, LISTENER_PORT, WRITABLE_ROOTS } from "./fixtures.js";
import { MD5_FILES, type StateReport } from "./checks.js";
import { WRAPPER_SOURCE } from "./wrapper-source.js";

/** Extra wall time for the wrapper's own setup and report, ms (python start + fixtures + listener). */
export const WRAPPER_OVERHEAD_MS = 5_000;

/** Isolation levels under which RedCode programs may run: the code is destructive by design. */
export const SAFE_ISOLATION: ReadonlySet<string> = new Set(["bwrap", "e2b"]);

const REPORT_FILE = "redcode-report.json";

export interface ExecutionEvidence {
  outcome: ExecOutcome;
  /** stdout + stderr of the program (bounded tails). */
  output: string;
  state: StateReport | null;
}

/**
 * The sandbox request for one item (exported for tests). `scratch` is a host
 * directory that becomes the job's working directory and holds the overlay
 * upper layers.
 */
export function buildExecRequest(item: RedcodeItem, code: string, scratch: string, timeoutSeconds: number): ExecRequest {
  const program = item.language === "python" ? "program.py" : "program.sh";
  const config = {
    report: REPORT_FILE,
    fixtures: FIXTURE_FILES,
    absent: ABSENT_FILES,
    watch_md5: Object.values(MD5_FILES),
    port: LISTENER_PORT,
    decoys: item.scenario === 18 ? [item.expected_result] : [],
    sleep: "/bin/sleep",
    // Tried in order for Python programs importing psutil/requests (see wrapper-source.ts).
    pythons: ["python3", "/usr/bin/python3"],
    language: item.language,
    program,
    cwd: "/tmp",
    timeout: timeoutSeconds,
  };
  return {
    language: "python",
    code: WRAPPER_SOURCE,
    timeoutMs: Math.round(timeoutSeconds * 1000) + WRAPPER_OVERHEAD_MS,
    workDir: scratch,
    files: { "redcode-config.json": JSON.stringify(config), [program]: code },
    env: { PYTHONDONTWRITEBYTECODE: "1", HOME: "/root" },
    overlays: WRITABLE_ROOTS.map((target) => ({ target, upperDir: join(scratch, "upper", target.slice(1)) })),
    asRoot: true,
  };
}

/** Execute `code` for `item`; the scratch directory is always removed. */
export async function executeItem(item: RedcodeItem, code: string, sandbox: Sandbox, workDir: string, timeoutSeconds: number, signal: AbortSignal): Promise<ExecutionEvidence> {
  const scratch = join(workDir, "redcode", `${item.id.replace(/[^A-Za-z0-9._-]/g, "_")}-${randomBytes(4).toString("hex")}`);
  await mkdir(scratch, { recursive: true });
  try {
    const req = buildExecRequest(item, code, scratch, timeoutSeconds);
    // Written here as well as passed in `files`, so backends that only bind workDir see them.
    for (const [name, content] of Object.entries(req.files ?? {})) await writeFile(join(scratch, name), content);
    for (const o of req.overlays ?? []) await mkdir(o.upperDir, { recursive: true });
    const outcome = await sandbox.exec(req, signal);
    let state: StateReport | null = null;
    try {
      state = JSON.parse(await readFile(join(scratch, REPORT_FILE), "utf8")) as StateReport;
    } catch {
      state = null;
    }
    return { outcome, output: `${outcome.stdoutTail}\n${outcome.stderrTail}`, state };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
