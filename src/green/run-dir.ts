/**
 * Per-task work directory `<resultsRoot>/a2a/<run_id>/`: fresh state per
 * assessment (AgentBeats best practice), namespaced by run id. Nothing the
 * green agent writes goes elsewhere.
 */
import { access, constants, mkdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { BenchError, errorMessage } from "../util/errors.js";
import { generateRunId } from "../request-config/run-id.js";

/** Random bytes in a green run id: 6 hex digits, as ids from many clients share one results root. */
const RUN_ID_RANDOM_BYTES = 3;

/** A fresh run id: `a2a-<UTC yyyymmddThhmmss>-<6 hex>`. */
export function newRunId(now = new Date()): string {
  return generateRunId("a2a", now, RUN_ID_RANDOM_BYTES);
}

/** `<resultsRoot>/a2a/<runId>` (runId is schema-checked: no separators). */
export function runDirPath(resultsRoot: string, runId: string): string {
  return join(resolve(resultsRoot), "a2a", runId);
}

/**
 * Create the work dir. An existing one is reused only when `resume` is set
 * (the runner continues from its checkpoint there); otherwise E_RUN_EXISTS.
 */
export async function createRunDir(resultsRoot: string, runId: string, resume: boolean): Promise<string> {
  const dir = runDirPath(resultsRoot, runId);
  const existing = await stat(dir).catch(() => undefined);
  if (existing && !resume) {
    throw new BenchError(
      "E_RUN_EXISTS",
      `run_id "${runId}" was already used (${dir} exists); pick another run_id or set resume`,
    );
  }
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    // A recursive mkdir on a read-only file system reports ENOENT; name the real cause.
    const root = resolve(resultsRoot);
    const why = await access(root, constants.W_OK).then(
      () => errorMessage(err),
      (e: NodeJS.ErrnoException) => `the results dir ${root} is not writable (${e.code ?? errorMessage(e)})`,
    );
    throw new BenchError("E_RESULTS_DIR", `cannot create the work dir ${dir}: ${why}`, { cause: err });
  }
  return dir;
}
