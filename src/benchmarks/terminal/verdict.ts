/**
 * The verdict of one attempt, out of the participant's reach as far as the
 * task format allows (the verifier runs in the environment the agent left,
 * as Harbor's does):
 *
 * 1. every process the episode left is ended (`kill -KILL -1` until only the
 *    environment's init and the killing shell are left; one that survives is
 *    the participant's doing, flagged);
 * 2. what the participant changed in the system is read from OUTSIDE the
 *    environment (the backend's `changedPaths`, the engine's `docker diff`):
 *    a changed or deleted system file, a program added on PATH under a name
 *    another PATH entry has (a fake `bash` or `pytest` first on PATH), a
 *    python start-up hook, a loader preload, a pytest configuration at `/`,
 *    any file added or changed where python imports from, git's, pip's or
 *    uv's configuration are listed in `tampered`; such a row's reward is 0 (its verifier's word
 *    is kept as `verifier_reward`);
 * 3. `/tests`, `/logs` and the verifier's HOME are deleted, `/tests`, the
 *    reward directory `/logs/verifier` and an empty HOME created fresh, and the task's tests (never in the
 *    environment before) are copied in from outside (`docker cp`);
 * 4. the verifier `bash /tests/test.sh` runs with its `timeout_sec` and only
 *    its own variables (`env -i`, a standard PATH, the fresh HOME,
 *    PYTHONNOUSERSITE=1, the task's `[verifier] env`);
 * 5. the reward is read by the harness from `/logs/verifier/reward.json`
 *    (its `reward`, or its one number) or else `reward.txt`: written by that
 *    run alone, since the directory started empty; read from outside (the
 *    backend's `readFileOutside`, `docker cp`), never by the environment's
 *    own `cat`.
 *
 * A verifier that writes no readable reward crashed: ours or the task's
 * (TerminalVerifierError, retried by the caller), unless the participant
 * tampered with the system, when it is the participant's 0; a harness step
 * failing because the environment is gone or killed it while the engine
 * answers is the participant's 0 too ({@link environmentLost}). A verifier past
 * its timeout is a 0 (the state the participant left made it slow).
 */
import { readFile, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Environment } from "../../sandbox/environment.js";
import { TerminalVerifierError } from "./errors.js";
import type { TerminalTask } from "./task.js";

export const TESTS_DIR = "/tests";
export const REWARD_DIR = "/logs/verifier";
/** The PATH the verifier runs with (Debian's default for root). */
export const VERIFIER_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/**
 * The verifier's HOME: made fresh and empty by the harness after the episode's processes are ended, so nothing
 * the participant left under /root (python's user site, `.gitconfig`, pip's or uv's configuration) is read.
 */
export const VERIFIER_HOME = "/a2a-bench-verifier-home";
/** Limit of a harness step in the environment (killing, copying), ms. */
const STEP_MS = 120_000;
/** Bytes of the verifier's output kept for the row and the viewer. */
export const VERIFIER_OUTPUT_BYTES = 64 * 1024;

/** Ends every process but the environment's init and itself (rounds of `kill -KILL -1` for up to ~10 s); prints `ok` or `left <n>`. */
export const KILL_SCRIPT = `self=$$
i=0
while [ $i -lt 100 ]; do
  kill -KILL -1 2>/dev/null
  left=0
  for d in /proc/[0-9]*; do
    pid=\${d#/proc/}
    if [ "$pid" = 1 ] || [ "$pid" = "$self" ]; then continue; fi
    line=""
    { read -r line < "$d/stat"; } 2>/dev/null || continue
    rest=\${line##*) }
    state=\${rest%% *}
    if [ "$state" != Z ] && [ -n "$state" ]; then left=$((left + 1)); fi
  done
  if [ $left -eq 0 ]; then echo ok; exit 0; fi
  i=$((i + 1))
  # A killed process can take a while to exit on a busy host: wait for it rather than count it as a survivor.
  sleep 0.1 2>/dev/null || sleep 1
done
echo "left $left"
exit 3
`;

/** System places whose change or deletion lets the participant steer the verifier. */
const SYSTEM_PREFIXES = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"];
const SYSTEM_FILES = [
  "/etc/ld.so.preload",
  "/etc/ld.so.conf",
  "/etc/environment",
  "/etc/profile",
  "/etc/bash.bashrc",
  "/etc/bashrc",
];
const SYSTEM_DIRS = ["/etc/ld.so.conf.d/", "/etc/profile.d/"];
/**
 * Where python imports from: a file added, changed or deleted there (a fake `pytest` package, a `.pth`) changes
 * what `python3 -m pytest` runs, whatever the verifier's variables.
 */
const IMPORT_ROOT =
  /\/(site-packages|dist-packages)(\/|$)|^\/usr\/local\/lib\/python[^/]*(\/|$)|^\/usr\/lib\/python3[^/]*(\/|$)|^\/root\/\.local\/lib(\/|$)/;
/** Configuration the verifier's tools read wherever HOME is (git, pip, uv), and root's own. */
const TOOL_CONFIG_FILES = ["/etc/gitconfig", "/etc/pip.conf", "/root/.gitconfig"];
const TOOL_CONFIG_DIRS = [
  "/etc/xdg/pip/",
  "/etc/uv/",
  "/etc/xdg/uv/",
  "/root/.config/pip/",
  "/root/.pip/",
  "/root/.config/uv/",
];
/** Directories of the verifier's PATH. */
const PATH_DIRS = VERIFIER_PATH.split(":");
/** Files that start with python or pytest wherever they are found. */
const HOOK_NAMES = /\/(sitecustomize|usercustomize)\.py$|\.pth$/;
/** pytest's root configuration, taken from `/` for tests in /tests. */
const ROOT_CONFIG = new Set([
  "/conftest.py",
  "/pytest.ini",
  "/tox.ini",
  "/setup.cfg",
  "/pyproject.toml",
  "/.pytest.ini",
]);

export interface Change {
  kind: "A" | "C" | "D";
  path: string;
}

/**
 * The changes that could steer the verifier: a changed or deleted system file (directories that only hold a
 * changed entry are not listed), a python start-up hook or loader preload added, a pytest configuration at
 * `/`, any file added, changed or deleted where python imports from (a `site-packages` or `dist-packages`
 * directory, `/usr/local/lib/python*`, `/usr/lib/python3*`, `/root/.local/lib`) or in the configuration of
 * git, pip or uv. Programs added on PATH are asked about separately ({@link shadowingPrograms}). Compiled caches
 * (`__pycache__`) that running python adds are not listed.
 */
export function tamperedPaths(changes: readonly Change[]): string[] {
  const paths = new Set(changes.map((c) => c.path));
  const isParent = (p: string): boolean => {
    for (const q of paths) if (q.startsWith(p + "/")) return true;
    return false;
  };
  const out: string[] = [];
  for (const c of changes) {
    if (c.path.includes("/__pycache__/") || c.path.endsWith("/__pycache__")) continue;
    const system =
      SYSTEM_PREFIXES.some((p) => c.path.startsWith(p)) ||
      SYSTEM_FILES.includes(c.path) ||
      SYSTEM_DIRS.some((d) => c.path.startsWith(d));
    // Added, changed or deleted alike: what python imports and the tools' configuration.
    const anyKind =
      IMPORT_ROOT.test(c.path) ||
      TOOL_CONFIG_FILES.includes(c.path) ||
      TOOL_CONFIG_DIRS.some((d) => c.path.startsWith(d) || c.path === d.slice(0, -1));
    const onlyHoldsChange = c.kind === "C" && isParent(c.path);
    // A directory added there is listed by the files it holds (an empty one shadows no module).
    if (anyKind && !(c.kind !== "D" && isParent(c.path))) out.push(`${c.kind} ${c.path}`);
    else if (c.kind !== "A" && system && !onlyHoldsChange) out.push(`${c.kind} ${c.path}`);
    else if (c.kind === "A" && (HOOK_NAMES.test(c.path) || ROOT_CONFIG.has(c.path) || SYSTEM_FILES.includes(c.path)))
      out.push(`${c.kind} ${c.path}`);
  }
  return out;
}

/** Programs added in a PATH directory (candidates for shadowing a program another PATH entry holds). */
export function addedOnPath(changes: readonly Change[]): string[] {
  return changes
    .filter((c) => c.kind === "A" && PATH_DIRS.some((d) => c.path === `${d}/${c.path.split("/").pop()}`))
    .map((c) => c.path);
}

/** Of `added` (files in PATH directories), those whose name another PATH directory also holds; $@ the paths. */
const SHADOW_SCRIPT = `for f in "$@"; do
  b=\${f##*/}
  for d in ${PATH_DIRS.join(" ")}; do
    if [ "$d/$b" != "$f" ] && [ -e "$d/$b" ]; then echo "$f"; break; fi
  done
done`;

export interface VerdictOutcome {
  /** The verifier's reward (null: it timed out). */
  verifierReward: number | null;
  /** Where the reward came from. */
  rewardFile: "reward.json" | "reward.txt" | null;
  /** The whole reward.json when there was one (other metrics beside `reward`). */
  rewardDetails?: Record<string, unknown>;
  verifierTimedOut: boolean;
  verifierExitCode: number | null;
  /** The verifier's output, its tail. */
  verifierOutput: string;
  verifierSeconds: number;
  /** What the participant changed that could steer the verifier (empty: nothing found). */
  tampered: string[];
  /** True when the system's changes could not be read (the backend offers no view from outside). */
  tamperUnchecked: boolean;
}

/** Exit code of a process killed by SIGKILL (the cgroup's OOM killer, `kill -9`). */
const KILLED_EXIT = 137;

async function step(env: Environment, argv: string[], what: string): Promise<string> {
  const r = await env.exec(argv, { timeoutMs: STEP_MS, maxOutputBytes: 64 * 1024 });
  if (r.infraError !== undefined) throw new TerminalVerifierError(`${what}: ${r.infraError}`);
  if (r.limitExceeded !== undefined) throw new TerminalVerifierError(`${what}: ${r.limitExceeded}`);
  if (r.exitCode !== 0)
    throw new TerminalVerifierError(
      `${what} failed (exit ${String(r.exitCode)}): ${r.output.trim().slice(-300)}`,
      r.exitCode === KILLED_EXIT,
    );
  return r.output;
}

/**
 * After a harness step failed once the participant had the environment: the participant's doing, as a
 * sentence, when the environment is gone or killed the step while the backend still answers (its main
 * process ended from inside, its memory filled, a limit it broke); null when the failure may be ours (the
 * backend stopped answering, the environment still runs commands and nothing was killed). Never rejects.
 */
export async function environmentLost(env: Environment, err: unknown): Promise<string | null> {
  try {
    const probe = await env.exec(["/bin/sh", "-c", "exit 0"], { timeoutMs: STEP_MS, maxOutputBytes: 4096 });
    if (probe.limitExceeded !== undefined) return `the environment broke a limit: ${probe.limitExceeded}`;
    if (probe.infraError !== undefined) return null;
    if ((await env.backendProblem()) !== null) return null;
    if (probe.exitCode !== 0)
      return `the environment no longer runs commands while its engine answers (${probe.output.trim().slice(-200) || `exit ${String(probe.exitCode)}`})`;
    if (err instanceof TerminalVerifierError && err.killed)
      return "a harness step was killed (exit 137) after the episode's processes were ended: the memory the participant left full (a tmpfs) or its doing";
    return null;
  } catch {
    return null;
  }
}

/** End every process the episode left. Returns a flag when some survived (the participant's doing). */
export async function endEpisodeProcesses(env: Environment): Promise<string | null> {
  const r = await env.exec(["/bin/sh", "-c", KILL_SCRIPT], { timeoutMs: STEP_MS, maxOutputBytes: 4096 });
  if (r.infraError !== undefined) throw new TerminalVerifierError(`ending the episode's processes: ${r.infraError}`);
  if (r.exitCode === 0 && r.output.trim() === "ok") return null;
  return `processes the episode left could not all be ended (${r.output.trim().slice(-200) || `exit ${String(r.exitCode)}`})`;
}

/** Every file of the task's tests/, relative paths sorted. */
async function testFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out.push(relative(dir, p));
    }
  };
  await walk(dir);
  return out.sort();
}

/**
 * Copy the task's tests into a fresh /tests and make the reward directory fresh and empty. The tests are
 * copied in from outside when the backend can (`copyInOutside`: no program of the environment writes them),
 * else written file by file.
 */
export async function installTests(env: Environment, task: TerminalTask): Promise<void> {
  const testsDir = join(task.dir, "tests");
  const files = await testFiles(testsDir);
  const dirs = [...new Set(files.map((f) => join(TESTS_DIR, f, "..")))];
  await step(
    env,
    [
      "/bin/sh",
      "-c",
      'rm -rf -- "$1" /logs "$2" && mkdir -m 700 -- "$2" && mkdir -p -- "$1" && shift 2 && mkdir -p -- "$@"',
      "fresh",
      TESTS_DIR,
      VERIFIER_HOME,
      REWARD_DIR,
      ...dirs,
    ],
    "making /tests, the reward directory and the verifier's HOME fresh",
  );
  if (env.copyInOutside) await env.copyInOutside(testsDir, TESTS_DIR);
  else
    for (const rel of files) {
      const bytes = await readFile(join(testsDir, rel));
      const text = bytes.toString("utf8");
      const target = join(TESTS_DIR, rel);
      if (Buffer.from(text, "utf8").equals(bytes)) await env.writeFile(target, text);
      else {
        await env.writeFile(`${target}.a2a-b64`, bytes.toString("base64"));
        await step(
          env,
          ["/bin/sh", "-c", 'base64 -d < "$1.a2a-b64" > "$1" && rm -f -- "$1.a2a-b64"', "b64", target],
          `copying ${rel}`,
        );
      }
    }
  await step(
    env,
    ["/bin/sh", "-c", 'chmod -R a+rX -- "$1" && chmod +x -- "$1/test.sh"', "chmod", TESTS_DIR],
    "making the tests readable",
  );
}

/** A reward file's text → the reward, or a sentence saying why it is none. */
export function parseReward(
  file: "reward.json" | "reward.txt",
  text: string,
): { reward: number; details?: Record<string, unknown> } | { problem: string } {
  if (file === "reward.txt") {
    const t = text.trim();
    const n = Number(t);
    if (t === "" || !Number.isFinite(n))
      return { problem: `reward.txt holds no number: ${JSON.stringify(t.slice(0, 80))}` };
    return { reward: n };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: "reward.json is not JSON" };
  }
  if (typeof parsed === "number" && Number.isFinite(parsed)) return { reward: parsed };
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    return { problem: "reward.json is not an object" };
  const obj = parsed as Record<string, unknown>;
  if (typeof obj["reward"] === "number" && Number.isFinite(obj["reward"]))
    return { reward: obj["reward"], details: obj };
  const numbers = Object.values(obj).filter((v): v is number => typeof v === "number" && Number.isFinite(v));
  if (numbers.length === 1) return { reward: numbers[0]!, details: obj };
  return { problem: 'reward.json has no "reward" and not exactly one number' };
}

/** Largest reward file read, bytes. */
const REWARD_MAX_BYTES = 1024 * 1024;

/** A reward file's text: read from outside the environment when the backend can, else through it. */
async function rewardText(env: Environment, path: string): Promise<string | null> {
  if (env.readFileOutside) return (await env.readFileOutside(path, REWARD_MAX_BYTES))?.toString("utf8") ?? null;
  try {
    return await env.readFile(path);
  } catch {
    return null;
  }
}

async function readReward(
  env: Environment,
): Promise<
  { file: "reward.json" | "reward.txt"; reward: number; details?: Record<string, unknown> } | { problem: string }
> {
  const problems: string[] = [];
  for (const file of ["reward.json", "reward.txt"] as const) {
    const text = await rewardText(env, `${REWARD_DIR}/${file}`);
    if (text === null) continue;
    const parsed = parseReward(file, text);
    if ("reward" in parsed) return { file, ...parsed };
    problems.push(parsed.problem);
  }
  return {
    problem:
      problems.length > 0
        ? problems.join("; ")
        : `the verifier wrote neither ${REWARD_DIR}/reward.json nor reward.txt (as regular files)`,
  };
}

/** What the participant changed that could steer the verifier, seen from outside; null: the backend cannot tell. */
export async function tamperCheck(env: Environment): Promise<string[] | null> {
  const changes = env.changedPaths ? await env.changedPaths() : null;
  if (changes === null) return null;
  const found = tamperedPaths(changes);
  const added = addedOnPath(changes);
  if (added.length > 0) {
    const r = await env.exec(["/bin/sh", "-c", SHADOW_SCRIPT, "shadow", ...added], {
      timeoutMs: STEP_MS,
      maxOutputBytes: 64 * 1024,
    });
    // The check runs inside: a failure to run it is itself suspicious when the system was changed.
    if (r.exitCode !== 0) found.push(...added.map((p) => `A ${p} (its shadowing could not be checked)`));
    else
      for (const line of r.output.split("\n").filter((l) => l.trim() !== ""))
        found.push(`A ${line.trim()} (shadows another program on PATH)`);
  }
  return found;
}

/** One verifier run on a fresh /tests and an empty reward directory. */
export async function runVerifier(
  env: Environment,
  task: TerminalTask,
): Promise<Omit<VerdictOutcome, "tampered" | "tamperUnchecked">> {
  await installTests(env, task);
  const vars = Object.entries(task.verifierEnv).map(([k, v]) => `${k}=${v}`);
  const limit = Math.ceil(task.verifierTimeoutSec);
  const started = performance.now();
  const r = await env.exec(
    [
      "/usr/bin/env",
      "-i",
      `PATH=${VERIFIER_PATH}`,
      `HOME=${VERIFIER_HOME}`,
      "LANG=C.UTF-8",
      // No per-user site directory, whatever HOME holds.
      "PYTHONNOUSERSITE=1",
      ...vars,
      "timeout",
      "-k",
      "5",
      String(limit),
      "bash",
      `${TESTS_DIR}/test.sh`,
    ],
    // The exec's own limit is well past the verifier's: `timeout` acts first and the environment lives on.
    { timeoutMs: (limit + 60) * 1000, maxOutputBytes: VERIFIER_OUTPUT_BYTES },
  );
  const verifierSeconds = (performance.now() - started) / 1000;
  if (r.infraError !== undefined) throw new TerminalVerifierError(`running the verifier: ${r.infraError}`);
  const timedOut = r.timedOut || r.exitCode === 124 || r.exitCode === 137;
  const base = { verifierExitCode: r.exitCode, verifierOutput: r.output, verifierSeconds };
  if (timedOut && r.exitCode !== 0) return { ...base, verifierReward: null, rewardFile: null, verifierTimedOut: true };
  const reward = await readReward(env);
  if ("problem" in reward)
    throw new TerminalVerifierError(
      `the verifier (exit ${String(r.exitCode)}) gave no reward: ${reward.problem}; its output ends: ${r.output.trim().slice(-300)}`,
    );
  return {
    ...base,
    verifierReward: reward.reward,
    rewardFile: reward.file,
    ...(reward.details ? { rewardDetails: reward.details } : {}),
    verifierTimedOut: false,
  };
}
