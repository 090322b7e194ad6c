/**
 * SWE-bench interactive (`interaction: "interactive"`): the participant works
 * in an environment of the run's sandbox (capability `environments`), one
 * shell command per A2A turn (src/interactive/, `terminal-bench-shell-v1`),
 * and its change is graded by the single-shot path in a FRESH place: what it
 * left in the working tree becomes the prediction. One flow for every
 * backend; what differs is asked of the sandbox's capabilities, never its name:
 * - with `images` the environment is the instance's own image, whose
 *   /testbed holds the repository with its history ({@link FRESH_REPO_SCRIPT});
 * - without, the environment starts from a host tree: a repository made on
 *   the host from the run's clone holding the base commit alone
 *   (export-tree.ts), copied in at /testbed and checked there
 *   ({@link FRESH_TREE_SCRIPT}); the tests then run on the host path.
 *
 * The working environment holds the repository at the base commit with every
 * trace of later history gone: before the first turn the repository is
 * re-created holding the base commit object itself (HEAD is the dataset's
 * `base_commit`, the same hash, which the task message names), its tree and
 * blobs, shallow at it (`.git/shallow`): no parent, no later commit, no
 * remotes, no other refs, no tags, no reflog of the old history, no other
 * object; the old `.git` is deleted. HEAD, its tree, the working tree and the
 * one reachable commit are checked. Neither the test patch nor the gold patch
 * is ever in it. No git step here starts git's background work (automatic gc
 * or maintenance: git-background.ts), which a later step would collide with.
 *
 * When the episode ends (`final` or any limit; a participant's failure too:
 * the environment is graded as it stands), the change is the working tree's
 * diff against the base commit, new files included (`git add -A`, so ignored files
 * stay out), the test patch's files excluded (the grading resets them anyway).
 * `environment_error` and `canceled` are ours, never a score: the item is an
 * infrastructure failure.
 *
 * A `final` may carry the change itself, as a diff: it is then the prediction
 * ({@link submittedChange}) when it was sent as the agent's change (AgentSWE's
 * `patch`, mini-swe-agent's submission, a submit tool's `patch`), or when the
 * environment was left untouched. Otherwise what the environment holds stands.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { removeTree } from "../../sandbox/remove-tree.js";
import type { EvaluateContext } from "../../runner/benchmark.js";
import { maxReplyBytes } from "../../a2a/client/reply-limit.js";
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
import { extractDiff } from "./extract-diff.js";
import { FRESH_BRANCH, exportCommitRepository } from "./export-tree.js";
import { GIT_REPO_CONFIG_LINES, GIT_SHELL_FUNCTION } from "./git-background.js";
import { locateRepo, reposDirFor } from "./repo-locator.js";

/** Where the repository is in the official images. */
export const TESTBED = "/testbed";
export { FRESH_BRANCH } from "./export-tree.js";
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
 * The checks both ways in end with, in the new repository: HEAD is the base commit ($base) on the branch,
 * its tree is the base tree ($want), the working tree is that tree, and the base commit is the one commit
 * reachable. Prints `ok <base commit>` last.
 */
const CHECK_BASE = `${GIT_REPO_CONFIG_LINES.join("\n")}
git update-index -q --refresh >/dev/null 2>&1 || true
head=$(git rev-parse --verify HEAD)
if [ "$head" != "$base" ]; then echo "HEAD is $head, not the base commit $base"; exit 3; fi
if [ "$(git symbolic-ref HEAD)" != "refs/heads/${FRESH_BRANCH}" ]; then echo "HEAD is not on ${FRESH_BRANCH}"; exit 3; fi
got=$(git rev-parse "HEAD^{tree}")
if [ "$got" != "$want" ]; then echo "the tree $got is not the base tree $want"; exit 3; fi
if ! git diff-files --quiet; then echo "the working tree is not the base tree: $(git diff-files --name-only | head -5)"; exit 3; fi
commits=$(git rev-list --all | wc -l)
if [ "$commits" -ne 1 ]; then echo "$commits commits are reachable, not the base commit alone"; exit 3; fi
git reflog expire --expire=now --all
echo "ok $base"
`;

/**
 * Re-create the repository holding the base commit alone (an image's repository, with history): the
 * old `.git` is renamed beside it (the same file system: no copy, however large), the base commit
 * object, its tree and blobs stream from it into a new `.git` (never a pack renamed across file
 * systems), shallow at the base; the old one is deleted. $1 repo dir, $2 base commit. Prints
 * `ok <base commit>` last; any failure exits non-zero with git's words.
 */
export const FRESH_REPO_SCRIPT = `set -euo pipefail
${GIT_SHELL_FUNCTION}
cd -- "$1"
git -c core.hooksPath=/dev/null checkout -q --force --detach "$2"
base=$(git rev-parse --verify "$2^{commit}")
want=$(git rev-parse --verify "$base^{tree}")
old="$PWD/.a2a-old-git"
rm -rf -- "$old"
mv .git "$old"
git init -q .
git --git-dir="$old" rev-list --objects --no-walk "$base" > "$old/a2a-objects"
git --git-dir="$old" pack-objects -q --stdout < "$old/a2a-objects" | git index-pack --stdin >/dev/null
rm -rf -- "$old"
printf '%s\n' "$base" > .git/shallow
git update-ref refs/heads/${FRESH_BRANCH} "$base"
git symbolic-ref HEAD refs/heads/${FRESH_BRANCH}
git read-tree "$base"
${CHECK_BASE}`;

/**
 * Check a repository made on the host (export-tree.ts) and copied in: the base commit alone, checked
 * out. $1 repo dir, $2 the base commit, $3 its tree hash (computed on the host).
 */
export const FRESH_TREE_SCRIPT = `set -euo pipefail
${GIT_SHELL_FUNCTION}
cd -- "$1"
base=$2 want=$3
if [ "$(cat .git/shallow 2>/dev/null)" != "$base" ]; then echo "the copied repository is not shallow at $base"; exit 3; fi
${CHECK_BASE}`;

/**
 * The working tree's change against $2 (the base commit) into $3, test files excluded ($4...).
 * Diff settings the participant may have set in the repository's config are overridden.
 */
const EXTRACT_SCRIPT = `set -eu
${GIT_SHELL_FUNCTION}
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
    `The repository ${inst.repo} is checked out in ${TESTBED} (the working directory of every command)`,
    `at its base commit ${inst.base_commit} (HEAD).`,
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
  /** Where the patch came from: the environment's working tree, or the diff the final reply carried. */
  patchSource?: "environment" | "final_output";
}

/**
 * The prediction of an episode that ended `final`: the diff its output carries when that output was
 * sent as the agent's change (`final_patch`) or when the environment holds no change; else the
 * environment's change (`environment`: "" when untouched, undefined when it could not be read).
 */
export function submittedChange(
  record: EpisodeRecord,
  environment: string | undefined,
): { patch: string; source: "environment" | "final_output" } | undefined {
  const output = record.exit_status === "final" ? (record.final_output ?? "") : "";
  const diff = output.trim() === "" ? null : extractDiff(output);
  const untouched = environment !== undefined && environment.trim() === "";
  if (diff !== null && (record.final_patch === true || untouched)) return { patch: diff, source: "final_output" };
  return environment === undefined ? undefined : { patch: environment, source: "environment" };
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
 * Make the environment's repository the base commit alone; returns it (the dataset's `base_commit`, checked).
 * `from`: the image's repository (its history dropped), or a repository made on the host whose base tree
 * is `treeHash`.
 */
export async function freshRepository(
  env: Environment,
  inst: SwebenchInstance,
  ctx: EvaluateContext,
  from: { kind: "repository" } | { kind: "tree"; commit: string; treeHash: string } = { kind: "repository" },
): Promise<string> {
  const argv =
    from.kind === "repository"
      ? ["bash", "-c", FRESH_REPO_SCRIPT, "fresh-repo", TESTBED, inst.base_commit]
      : ["bash", "-c", FRESH_TREE_SCRIPT, "fresh-tree", TESTBED, from.commit, from.treeHash];
  const out = await step(env, argv, ctx, "re-creating the repository at the base commit");
  const m = /ok ([0-9a-f]{40,64})\s*$/.exec(out);
  if (!m)
    throw new BenchError("E_SWEBENCH_EPISODE", `re-creating the repository printed no commit: ${out.slice(-300)}`);
  if (!m[1]!.startsWith(inst.base_commit.toLowerCase()))
    throw new BenchError(
      "E_SWEBENCH_EPISODE",
      `the repository's HEAD is ${m[1]!}, not the base commit ${inst.base_commit}`,
    );
  return m[1]!;
}

/** The change left in the environment against `base` (the base commit), test files excluded. */
export async function extractChange(
  env: Environment,
  inst: SwebenchInstance,
  base: string,
  ctx: EvaluateContext,
): Promise<string> {
  const excludes = testFilesOf(inst).map((f) => `:(exclude,literal)${f}`);
  await step(
    env,
    ["bash", "-c", EXTRACT_SCRIPT, "extract", TESTBED, base, DIFF_FILE, ...excludes],
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
): Promise<{ env: Environment; from: { kind: "repository" } | { kind: "tree"; commit: string; treeHash: string } }> {
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
    const exported = await exportCommitRepository(repoDir, inst.base_commit, tree);
    const env = await provider.openEnvironment({ tree: { host: tree, dir: TESTBED }, owner }, ctx.signal);
    return { env, from: { kind: "tree", commit: exported.commit, treeHash: exported.tree } };
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
    const base = await freshRepository(env, inst, ctx, from);
    const sink = trajectoryFile(trajectoryPath, ctx.options.max_trajectory_bytes);
    let record: EpisodeRecord;
    try {
      record = await runEpisode({
        instruction: episodeInstruction(inst),
        facts: {
          benchmark: "swebench",
          instance_id: inst.instance_id,
          repo: inst.repo,
          base_commit: base,
          workdir: TESTBED,
        },
        limits: episodeLimitsOf(ctx.options),
        participant: createA2ATurnSender({
          url,
          maxReplyBytes: maxReplyBytes(ctx.options.max_participant_reply_bytes),
          // The run's client: its card was fetched once, by the participant check, not per episode.
          ...(ctx.participant?.client ? { client: ctx.participant.client.bind(ctx.participant) } : {}),
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
      const chosen = submittedChange(record, await extractChange(env, inst, base, ctx))!;
      return { record, trajectory, patch: chosen.patch, patchSource: chosen.source };
    } catch (err) {
      if (!ctx.signal.aborted && (await participantsDoing(err, env))) {
        // The repository is broken, but a change sent as such stands on its own.
        const sent = submittedChange(record, undefined);
        if (sent) return { record, trajectory, patch: sent.patch, patchSource: sent.source };
        return { record, trajectory, patch: "", changeError: errorMessage(err) };
      }
      return { record, trajectory, patch: null, infraError: errorMessage(err) };
    }
  } finally {
    await env.close();
  }
}
