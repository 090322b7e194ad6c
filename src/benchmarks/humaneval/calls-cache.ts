/**
 * On-disk cache of HumanEval's RECORDED calls (replay.ts step 1): the ordered
 * calls check() makes to the canonical solution, which depend only on the
 * dataset's own code, the checker program and the interpreter. Recording all
 * 164 tasks costs the checker ~0.2 s of CPU (HumanEval/75's reference alone
 * ~0.1 s) on every run; with the cache a run reads one small JSON file.
 *
 * Where: one file per (checker program sha256, dataset sha256) under
 * `$A2A_BENCH_HUMANEVAL_CALLS_CACHE` (a directory; `off` disables the cache),
 * else `<cache root>/humaneval-calls` with the cache root of the other caches
 * (`$A2A_BENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/a2a-bench`, else
 * `~/.cache/a2a-bench`). The directory is created 0700. Inside, each task's
 * entry also carries the sha256 of its problem fields (prompt, test, entry
 * point, canonical solution), and the file names the interpreter that
 * recorded it: any mismatch, a missing or unreadable file, bad JSON or a bad
 * shape means that task (or the whole file) is recorded again, never an error.
 * New records are written at the end of the run, atomically (temp + rename),
 * so a reader never sees half a file; two runs writing at once lose at most
 * each other's additions.
 *
 * Why this cannot change a verdict:
 * - Confidentiality: an entry holds only call ARGUMENTS, exactly what the
 *   candidate's program receives on stdin when it answers; no expected value,
 *   no test source. The sandbox never gets the path (it is not in any job).
 * - Integrity: the judge runs the dataset's real check() and compares every
 *   call's arguments with the plan; a plan that differs (a shorter, longer or
 *   altered list) is caught as `diverged` and the rest is recorded afresh by
 *   the oracle, so a stale plan costs one answer round, not a verdict. The one
 *   way a plan could still matter is its LENGTH past the real calls (a huge
 *   list could push the candidate's answer job into its time limit), so we
 *   trust a file only when it is a regular file owned by our uid and not
 *   writable by group or others (read through O_NOFOLLOW): nobody but us (or
 *   root) can have written it.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.js";
import type { CheckCall } from "./checker.js";
import type { HumanEvalProblem } from "./problem.js";

/** Format of the cache file; bumped when its shape changes. */
const FORMAT = 1;
/** Largest cache file we read, bytes (HumanEval's 164 plans are ~0.5 MB). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

type ProblemFields = Pick<HumanEvalProblem, "task_id" | "prompt" | "test" | "entry_point" | "canonical_solution">;

interface CacheFile {
  format: number;
  checker: string;
  dataset: string;
  python: string;
  tasks: Record<string, { problem: string; calls: CheckCall[] }>;
}

/** The calls cache directory, or null when the operator turned it off (`A2A_BENCH_HUMANEVAL_CALLS_CACHE=off`). */
export function defaultCallsCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const explicit = env["A2A_BENCH_HUMANEVAL_CALLS_CACHE"];
  if (explicit === "off") return null;
  if (explicit) return explicit;
  const root = env["A2A_BENCH_CACHE_DIR"] || join(env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "a2a-bench");
  return join(root, "humaneval-calls");
}

/** sha256 of the problem fields the recorded calls depend on. */
export function problemKey(p: ProblemFields): string {
  const canonical = JSON.stringify([p.task_id, p.prompt, p.test, p.entry_point, p.canonical_solution]);
  return createHash("sha256").update(canonical).digest("hex");
}

function isCall(v: unknown): v is CheckCall {
  return (
    typeof v === "object" && v !== null && !Array.isArray(v) && "a" in v && "k" in v && Object.keys(v).length === 2
  );
}

/** Read a file only if it is ours (regular, owned by our uid, not group/world-writable); null otherwise. */
async function readTrusted(path: string): Promise<string | null> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = await fh.stat();
    const uid = process.getuid?.();
    if (!st.isFile() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) return null;
    if (st.size > MAX_FILE_BYTES) return null;
    return await fh.readFile("utf8");
  } catch {
    return null;
  } finally {
    await fh?.close().catch(() => {});
  }
}

/** The file's task entries when every key matches; an empty map otherwise. */
function parseCache(text: string | null, want: Omit<CacheFile, "tasks">): CacheFile["tasks"] {
  const tasks: CacheFile["tasks"] = Object.create(null) as CacheFile["tasks"];
  if (text === null) return tasks;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return tasks;
  }
  if (typeof v !== "object" || v === null) return tasks;
  const f = v as Partial<CacheFile>;
  if (f.format !== want.format || f.checker !== want.checker || f.dataset !== want.dataset || f.python !== want.python)
    return tasks;
  if (typeof f.tasks !== "object" || f.tasks === null) return tasks;
  for (const [id, e] of Object.entries(f.tasks)) {
    if (typeof e?.problem === "string" && Array.isArray(e.calls) && e.calls.every(isCall)) tasks[id] = e;
  }
  return tasks;
}

export interface CallsCacheKey {
  /** Cache directory (null: no cache, every task is recorded). */
  dir: string | null;
  /** sha256 of the checker program. */
  checker: string;
  /** sha256 of the dataset file. */
  dataset: string;
  /** The interpreter that records (its path). */
  python: string;
}

/** One dataset's recorded calls, read once from the cache and written back when new ones were recorded. */
export class CallsCache {
  private readonly tasks: Promise<CacheFile["tasks"]>;
  private added = false;

  constructor(private readonly key: CallsCacheKey) {
    this.tasks =
      key.dir === null ? Promise.resolve({}) : readTrusted(this.path()).then((t) => parseCache(t, this.header()));
  }

  /** The cached calls of this problem, or null (not cached, or cached for other problem fields). */
  async get(problem: ProblemFields): Promise<CheckCall[] | null> {
    const e = (await this.tasks)[problem.task_id];
    return e && e.problem === problemKey(problem) ? e.calls : null;
  }

  /** The problem's calls: cached, else recorded by `record` (and remembered; a failed record is not). */
  async plan(problem: ProblemFields, record: (p: ProblemFields) => Promise<CheckCall[]>): Promise<CheckCall[]> {
    const hit = await this.get(problem);
    if (hit) return hit;
    const calls = await record(problem);
    await this.put(problem, calls);
    return calls;
  }

  /** Remember freshly recorded calls (written by {@link flush}). */
  async put(problem: ProblemFields, calls: CheckCall[]): Promise<void> {
    (await this.tasks)[problem.task_id] = { problem: problemKey(problem), calls };
    this.added = true;
  }

  /** Write the file when something was added (atomically; a failure to write only loses the cache). */
  async flush(): Promise<void> {
    if (!this.added || this.key.dir === null) return;
    this.added = false;
    const file: CacheFile = { ...this.header(), tasks: await this.tasks };
    try {
      await mkdir(this.key.dir, { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.path(), JSON.stringify(file));
    } catch {
      /* a cache we cannot write is only a slower next run */
    }
  }

  private header(): Omit<CacheFile, "tasks"> {
    return { format: FORMAT, checker: this.key.checker, dataset: this.key.dataset, python: this.key.python };
  }

  private path(): string {
    return join(this.key.dir ?? "", `calls-${this.key.checker.slice(0, 16)}-${this.key.dataset.slice(0, 16)}.json`);
  }
}
