/**
 * SWE-bench interactive (`interaction: "interactive"`): the participant works
 * in an environment of the run's sandbox (capability `environments`), one
 * shell command per A2A turn (src/interactive/, `terminal-bench-shell-v1`),
 * and its change is graded by the single-shot path in a FRESH place: what it
 * left in the working tree becomes the prediction. One flow for every
 * backend; what differs is asked of the sandbox's capabilities, never its name:
 * - with `images` the environment is the instance's own image, whose
 *   /testbed holds the repository with its history ({@link FRESH_REPO_SCRIPT});
 * - without, the environment starts from a host tree: the base commit's
 *   tracked files, exported from the run's clone by git on the host (no
 *   `.git`, so no history ever enters), copied in at /testbed
 *   ({@link FRESH_TREE_SCRIPT}); the tests then run on the host path.
 *
 * The working environment holds the repository at the base commit with every
 * trace of later history gone: before the first turn the repository is
 * re-created from the base commit's tree alone (a new `.git` holding one
 * commit of exactly that tree, on a fresh branch: no remotes, no other refs,
 * no tags, no reflog of the old history, no unreachable objects; an old
 * `.git` is deleted), and the new commit's tree is checked to be the base
 * commit's. Neither the test patch nor the gold patch is ever in it.
 *
 * When the episode ends (`final` or any limit; a participant's failure too:
 * the environment is graded as it stands), the change is the working tree's
 * diff against that commit, new files included (`git add -A`, so ignored files
 * stay out), the test patch's files excluded (the grading resets them anyway).
 * `environment_error` and `canceled` are ours, never a score: the item is an
 * infrastructure failure.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { removeTree } from "../../sandbox/remove-tree.js";
import type { EvaluateContext } from "../../runner/benchmark.js";
import { maxReplyBytes } from "../../a2a/reply-limit.js";
import { createA2ATurnSender } from "../../interactive/a2a-sender.js";
import { runEpisode, type CommandEvent } from "../../interactive/episode.js";
import type { EpisodeRecord } from "../../interactive/episode-record.js";
import { shellEnvironment } from "../../interactive/shell-environment.js";
import { trajectoryFile } from "../../interactive/trajectory.js";
import { episodeLimitsOf } from "../../request-config/interaction-rules.js";
import { environmentsOf, type Environment } from "../../sandbox/environment.js";
import { BenchError, errorMessage } from "../../util/errors.js";
import { SandboxError } from "../../sandbox/errors.js";
import { READ_FILE_MAX_BYTES } from "../../sandbox/docker/docker-environment.js";
import type { SwebenchInstance } from "./instance.js";
import { testFilesOf } from "./test-spec.js";
import { imageFor } from "./container/image-name.js";
import { exportCommitTree } from "./export-tree.js";
import { locateRepo, reposDirFor } from "./repo-locator.js";

/** Where the repository is in the official images. */
export const TESTBED = "/testbed";
/** The branch of the fresh repository. */
export const FRESH_BRANCH = "main";
/** Limit of a setup or extraction step, ms (git on a large repository). */
const STEP_TIMEOUT_MS = 300_000;
/** Where the extracted diff is written inside the environment (outside the repository). */
const DIFF_FILE = "/tmp/a2a-bench-episode.diff";
const CALLER = "swebench";
/**
 * Largest change taken, bytes (the environment's readFile cap): a larger one (a participant's huge
 * or random file) is the participant's failure, scored 0 with the reason, never an infrastructure error.
 */
export const MAX_CHANGE_BYTES = READ_FILE_MAX_BYTES;

/**
 * The fresh commit's end, shared by both ways in: the base tree (`$want`) staged in a new repository is
 * committed, checked to be the base tree, and nothing else is left in the object store.
 */
const COMMIT_FRESH = `export GIT_AUTHOR_NAME=a2a-bench GIT_AUTHOR_EMAIL=a2a-bench@localhost GIT_COMMITTER_NAME=a2a-bench GIT_COMMITTER_EMAIL=a2a-bench@localhost
git -c core.hooksPath=/dev/null -c commit.gpgsign=false commit -q --allow-empty -m "base commit"
got=$(git rev-parse HEAD^{tree})
if [ "$got" != "$want" ]; then echo "the fresh tree $got is not the base tree $want"; exit 3; fi
git reflog expire --expire=now --all
git gc -q --prune=now
echo "ok $(git rev-parse HEAD)"
`;

/**
 * Re-create the repository from the base commit's tree only (an image's repository, with history).
 * $1 repo dir, $2 base commit. Prints `ok <fresh commit>` last; any failure exits non-zero with git's words.
 */
export const FRESH_REPO_SCRIPT = `set -eu
cd -- "$1"
git -c core.hooksPath=/dev/null checkout -q --force --detach "$2"
want=$(git rev-parse "$2^{tree}")
list=$(mktemp)
git ls-files -z > "$list"
old=$(mktemp -d)
mv .git "$old/git"
git init -q .
git symbolic-ref HEAD refs/heads/${FRESH_BRANCH}
git add -f --pathspec-from-file="$list" --pathspec-file-nul
rm -f -- "$list"
rm -rf -- "$old"
${COMMIT_FRESH}`;

/**
 * The same from a tree holding exactly the base commit's tracked files and no `.git` (exported on the
 * host): every file is staged (`-f`: tracked files an ignore rule matches too). $1 repo dir, $2 the base
 * commit's tree hash. A tree that is not the base commit's fails the check.
 */
export const FRESH_TREE_SCRIPT = `set -eu
cd -- "$1"
want=$2
if [ -e .git ]; then echo "the exported tree already holds a .git"; exit 3; fi
git init -q .
git symbolic-ref HEAD refs/heads/${FRESH_BRANCH}
git add -f -A .
${COMMIT_FRESH}`;

/**
 * The working tree's change against $2 (the fresh commit) into $3, test files excluded ($4...).
 * Diff settings the participant may have set in the repository's config are overridden.
 */
const EXTRACT_SCRIPT = `set -eu
cd -- "$1"
base=$2 out=$3
shift 3
rm -rf -- "$out"
git -c core.hooksPath=/dev/null add -A
git -c core.hooksPath=/dev/null -c diff.noprefix=false -c diff.mnemonicPrefix=false -c core.quotePath=true \\
  diff --cached --binary --no-color --no-ext-diff --no-textconv --src-prefix=a/ --dst-prefix=b/ "$base" -- . "$@" > "$out"
size=$(stat -c %s -- "$out")
if [ "$size" -gt ${MAX_CHANGE_BYTES} ]; then echo "the change is $size bytes, more than ${MAX_CHANGE_BYTES}"; exit 4; fi
echo ok
`;

/** The task text of an instance (the facts travel beside it in the task message). */
export function episodeInstruction(inst: SwebenchInstance): string {
  return [
    `The repository ${inst.repo} is checked out in ${TESTBED} (the working directory of every command).`,
    "Resolve the issue below by changing the repository's non-test files. Each command runs in a fresh",
    "`bash -lc` (cd and export do not carry over; files do). There is no network.",
    "When you are done, reply final: the change in the working tree (new files included) is graded by",
    "running the repository's tests, which you may not see; changes to test files are discarded.",
    "",
    "Issue:",
    inst.problem_statement,
  ].join("\n");
}

/** What an episode produced for grading. */
export interface EpisodeOutcome {
  record: EpisodeRecord;
  /** The trajectory's path relative to the run's out dir. */
  trajectory: string;
  /** The change left in the environment (null: none could be taken: environment_error, canceled). */
  patch: string | null;
  /** Why no patch could be taken (ours), when `patch` is null. */
  infraError?: string;
  /** Why the change could not be read although the backend worked (the participant broke the repository): scored 0. */
  changeError?: string;
}

/** Code of a step that ran and failed: in the working environment after the episode, the participant's doing. */
export const E_STEP_FAILED = "E_SWEBENCH_EPISODE_STEP";

async function step(env: Environment, argv: string[], ctx: EvaluateContext, what: string): Promise<string> {
  const out = await env.exec(argv, { timeoutMs: STEP_TIMEOUT_MS, signal: ctx.signal });
  if (out.infraError !== undefined) throw new BenchError("E_SWEBENCH_EPISODE", `${what}: ${out.infraError}`);
  if (out.isCanceled || ctx.signal.aborted) throw new BenchError("E_SWEBENCH_CANCELLED", `cancelled while ${what}`);
  if (out.exitCode !== 0)
    throw new BenchError(
      E_STEP_FAILED,
      `${what} failed (exit ${String(out.exitCode)}${out.timedOut ? ", timed out" : ""}): ${out.output.trim().slice(-300)}`,
    );
  return out.output;
}

/**
 * Make the environment's repository the base commit's tree alone; returns the fresh commit. `from`: the
 * image's repository (its history scrubbed), or an exported tree whose hash must be `treeHash`.
 */
export async function freshRepository(
  env: Environment,
  inst: SwebenchInstance,
  ctx: EvaluateContext,
  from: { kind: "repository" } | { kind: "tree"; treeHash: string } = { kind: "repository" },
): Promise<string> {
  const argv =
    from.kind === "repository"
      ? ["bash", "-c", FRESH_REPO_SCRIPT, "fresh-repo", TESTBED, inst.base_commit]
      : ["bash", "-c", FRESH_TREE_SCRIPT, "fresh-tree", TESTBED, from.treeHash];
  const out = await step(env, argv, ctx, "re-creating the repository at the base commit");
  const m = /ok ([0-9a-f]{40,64})\s*$/.exec(out);
  if (!m)
    throw new BenchError("E_SWEBENCH_EPISODE", `re-creating the repository printed no commit: ${out.slice(-300)}`);
  return m[1]!;
}

/** The change left in the environment against `fresh`, test files excluded. */
export async function extractChange(
  env: Environment,
  inst: SwebenchInstance,
  fresh: string,
  ctx: EvaluateContext,
): Promise<string> {
  const excludes = testFilesOf(inst).map((f) => `:(exclude,literal)${f}`);
  await step(
    env,
    ["bash", "-c", EXTRACT_SCRIPT, "extract", TESTBED, fresh, DIFF_FILE, ...excludes],
    ctx,
    "taking the change from the environment",
  );
  return env.readFile(DIFF_FILE);
}

/**
 * Whether taking the change failed by what the participant left: a step that ran and failed, or a
 * read of the diff file refused (endless, too large: a process it left swapped the file) while the
 * backend answers. Anything else is ours.
 */
async function participantsDoing(err: unknown, env: Environment): Promise<boolean> {
  if (err instanceof BenchError && err.code === E_STEP_FAILED) return true;
  if (err instanceof SandboxError && err.code === "E_SANDBOX_SETUP") return (await env.backendProblem()) === null;
  return false;
}

/**
 * The instance's working environment, by capability: its image (`images`), else the base commit's tree
 * exported from the run's clone on the host (removed once the environment holds its copy).
 */
async function openEpisodeEnvironment(
  inst: SwebenchInstance,
  ctx: EvaluateContext,
): Promise<{ env: Environment; from: { kind: "repository" } | { kind: "tree"; treeHash: string } }> {
  const provider = environmentsOf(ctx.sandbox, CALLER);
  const owner = ctx.options.run_id;
  if (ctx.sandbox.capabilities.has("images")) {
    const image = imageFor(inst.instance_id, {
      template: ctx.options.swebench_image_template,
      overrides: ctx.options.swebench_images,
    });
    return { env: await provider.openEnvironment({ image, owner }, ctx.signal), from: { kind: "repository" } };
  }
  const repoDir = locateRepo(await reposDirFor(ctx.options), inst.repo);
  const staging = await mkdtemp(join(tmpdir(), "a2a-swe-tree-"));
  try {
    const tree = join(staging, "tree");
    const treeHash = await exportCommitTree(repoDir, inst.base_commit, tree, join(staging, "index"));
    const env = await provider.openEnvironment({ tree: { host: tree, dir: TESTBED }, owner }, ctx.signal);
    return { env, from: { kind: "tree", treeHash } };
  } finally {
    await removeTree(staging);
  }
}

/**
 * Run one instance's episode in its environment: fresh repository, the episode, the change taken.
 * `onCommand` is told each command (the runner streams it). Never throws for the participant's failures.
 */
export async function runInstanceEpisode(
  inst: SwebenchInstance,
  ctx: EvaluateContext,
  artifacts: string,
  onCommand?: (event: CommandEvent) => void,
): Promise<EpisodeOutcome> {
  const url = ctx.options.agent;
  if (url === undefined) throw new BenchError("E_NO_PARTICIPANT", "swebench interactive: no participant (agent)");
  const trajectoryPath = join(artifacts, "trajectory.jsonl");
  const trajectory = relative(ctx.options.out, trajectoryPath);
  const { env, from } = await openEpisodeEnvironment(inst, ctx);
  try {
    const fresh = await freshRepository(env, inst, ctx, from);
    const sink = trajectoryFile(trajectoryPath);
    let record: EpisodeRecord;
    try {
      record = await runEpisode({
        instruction: episodeInstruction(inst),
        facts: {
          benchmark: "swebench",
          instance_id: inst.instance_id,
          repo: inst.repo,
          base_commit: fresh,
          workdir: TESTBED,
        },
        limits: episodeLimitsOf(ctx.options),
        participant: createA2ATurnSender({
          url,
          maxReplyBytes: maxReplyBytes(ctx.options.max_participant_reply_bytes),
        }),
        environment: shellEnvironment(env, { workdir: TESTBED }),
        signal: ctx.signal,
        ...(onCommand ? { onCommand } : {}),
        trajectory: sink,
      });
    } finally {
      await sink.close();
    }
    if (record.exit_status === "environment_error" || record.exit_status === "canceled") {
      return {
        record,
        trajectory,
        patch: null,
        infraError: record.error?.message ?? `the episode ended ${record.exit_status}`,
      };
    }
    try {
      return { record, trajectory, patch: await extractChange(env, inst, fresh, ctx) };
    } catch (err) {
      if (!ctx.signal.aborted && (await participantsDoing(err, env)))
        return { record, trajectory, patch: "", changeError: errorMessage(err) };
      return { record, trajectory, patch: null, infraError: errorMessage(err) };
    }
  } finally {
    await env.close();
  }
}
