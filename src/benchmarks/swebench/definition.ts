/**
 * The SWE-bench benchmark plug-in: per instance a tree at the base commit (a
 * worktree reused within the run, or a fresh clone; see checkout.ts), the
 * test-run inventory of the base commit with test_patch applied
 * (local-inventory.ts), the model patch (participant or predictions file)
 * applied the named release's way (apply-patch.ts), the test files reset and
 * test_patch applied, the inventory again (what differs is flagged,
 * test-inventory.ts), the instance's tests run in the sandbox, and the log
 * (assembled by the harness with nonce markers, see markers.ts) graded as the
 * official harness grades (grading.ts, rules.ts).
 *
 * Where it runs is the sandbox's capability, never its name: with
 * `environments` each instance is graded in its own image
 * (container/evaluate.ts); else with `host-workdir` on a host tree whose tests
 * run in the sandbox (this file); a backend with neither is refused.
 */
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { removeTree } from "../../sandbox/remove-tree.js";
import { createHash, randomBytes } from "node:crypto";
import type { BenchmarkDefinition, DatasetInfo, EvaluateContext, ItemResult } from "../../runner/benchmark.js";
import type { SwebenchRow } from "./row.js";
import type { RunOptions } from "../../runner/options.js";
import type { Logger } from "../../util/logger.js";
import { BenchError, errorMessage } from "../../util/errors.js";
import { writeFileAtomic, writeJsonAtomic } from "../../util/atomic-write.js";
import { loadInstanceFile, type SwebenchInstance, type SwebenchItem } from "./instance.js";
import { loadPredictions, type Prediction } from "./predictions.js";
import { ensureSampleDataset } from "./sample-dataset.js";
import { locateRepo, reposDirFor, SAMPLE_DATASET } from "./repo-locator.js";
import { createCheckout, type Checkout } from "./checkout.js";
import { benchmarkNeedsParticipant } from "../needs-participant.js";
import { applyPatch } from "./apply-patch.js";
import { gitIn, type Tree } from "./git.js";
import { extractDiff } from "./extract-diff.js";
import { buildRequest, repoContext } from "./prompt.js";
import { testFilesOf, testSpecFor } from "./test-spec.js";
import type { InstanceReport } from "./grading.js";
import { gradeTestRun, type Verdict } from "./verdict.js";
import { aggregateSwebench } from "./report.js";
import { ruleSet } from "./rules.js";
import { ensureGit, ensureSandboxPython } from "./tools.js";
import { SWEBENCH_ERROR_CODES, SwebenchInfraError } from "./errors.js";
import { resetTree } from "./worktree.js";
import { localInventory, probeArgs, runsPytest, type ProbeTarget } from "./local-inventory.js";
import {
  diffInventories,
  namedFlags,
  symlinkModes,
  uniqueFlags,
  type Inventory,
  type TestConfigFlag,
} from "./test-inventory.js";
import { assertValid } from "../../util/schema.js";
import { participantFailureMode } from "../../runner/participant-failure.js";
import { evaluateInContainer } from "./container/evaluate.js";
import { SandboxCapabilityError } from "../../sandbox/capabilities.js";
import type { Sandbox } from "../../sandbox/types.js";
import type { EpisodeRecord } from "../../interactive/episode-record.js";
import type { TokenUsage } from "../../a2a/shared/usage.js";

export { SAMPLE_DATASET } from "./repo-locator.js";

/** Model name recorded when the patch came from the participant. */
export const PARTICIPANT_MODEL_NAME = "a2a-participant";

function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 100);
}

const predictionCache = new Map<string, Promise<Map<string, Prediction>>>();
function predictionsFor(path: string): Promise<Map<string, Prediction>> {
  const abs = resolve(path);
  let p = predictionCache.get(abs);
  if (!p) {
    p = loadPredictions(abs);
    predictionCache.set(abs, p);
    p.catch(() => predictionCache.delete(abs));
  }
  return p;
}

/** Per-instance artifact directory: `<out>/swebench/<instance>` (kept after the run). */
export function artifactDir(options: RunOptions, instanceId: string): string {
  return join(options.out, "swebench", safeName(instanceId));
}

/** The model patch for an instance: from the predictions file, else asked of the participant. */
async function modelPatch(
  inst: SwebenchInstance,
  tree: Tree | null,
  ctx: EvaluateContext,
): Promise<{ patch: string | null; modelName: string; submitted: boolean }> {
  if (ctx.options.predictions) {
    const pred = (await predictionsFor(ctx.options.predictions)).get(inst.instance_id);
    return {
      patch: pred?.model_patch ?? null,
      modelName: pred?.model_name_or_path ?? "none",
      submitted: pred !== undefined,
    };
  }
  if (!ctx.participant) throw new BenchError("E_NO_PARTICIPANT", "swebench: no participant and no --predictions file");
  if (!tree)
    throw new BenchError(
      "E_REPOS_DIR",
      "swebench: asking the participant needs the repository on the host for its prompt",
    );
  const request = buildRequest(inst, await repoContext(tree, inst.problem_statement));
  const timeout = AbortSignal.timeout(ctx.options.agent_timeout_seconds * 1000);
  const reply = await ctx.participant.ask(request, AbortSignal.any([ctx.signal, timeout]));
  return { patch: extractDiff(reply.text, reply.data), modelName: PARTICIPANT_MODEL_NAME, submitted: true };
}

/**
 * Reset the test files to the base commit, then apply test_patch (the
 * official eval script does the same, after the model patch): whatever the
 * model patch did to these files is undone, and files test_patch creates are
 * removed first. Returns git's report, for the log's preamble.
 */
async function applyTestPatch(inst: SwebenchInstance, tree: Tree, scratch: string): Promise<string> {
  for (const file of testFilesOf(inst)) {
    // Files new in test_patch do not exist at base; checkout fails for them, which is fine.
    const r = await gitIn(tree, ["checkout", inst.base_commit, "--", file]);
    // A parent that is not a directory (the model patch may put a file there) holds no such file either.
    if (r.exitCode !== 0) await removeTree(join(tree.path, file));
  }
  const file = join(scratch, "test.patch");
  await writeFileAtomic(file, inst.test_patch.endsWith("\n") ? inst.test_patch : inst.test_patch + "\n");
  const r = await gitIn(tree, ["apply", "--verbose", file]);
  if (r.exitCode !== 0)
    throw new BenchError("E_TEST_PATCH", `test_patch does not apply: ${r.stderr.trim().slice(-500)}`);
  return `+ git apply -v test.patch\n${(r.stdout + r.stderr).trim()}`;
}

/**
 * The inventory of the tree at the base commit with test_patch applied (what grading would run
 * without the model patch); the tree is put back to the base commit afterwards.
 */
async function baselineInventory(
  inst: SwebenchInstance,
  tree: Tree,
  scratch: string,
  target: Omit<ProbeTarget, "workDir">,
): Promise<Inventory> {
  await applyTestPatch(inst, tree, scratch);
  try {
    return await localInventory({ ...target, workDir: tree.path });
  } finally {
    await resetTree(tree, "HEAD");
  }
}

/**
 * What the applied model patch changes in how the tests run: its edits to test and runner files,
 * its symlink modes, and every difference between the inventories before and after it
 * (test-inventory.ts). Call with the tree after the model patch and test_patch.
 */
async function testConfigFlags(
  inst: SwebenchInstance,
  tree: Tree,
  patch: string,
  before: Inventory | null,
  target: Omit<ProbeTarget, "workDir">,
): Promise<TestConfigFlag[]> {
  const flags = [...namedFlags(patch, testFilesOf(inst), inst.repo), ...symlinkModes(patch)];
  if (before !== null) flags.push(...diffInventories(before, await localInventory({ ...target, workDir: tree.path })));
  return uniqueFlags(flags);
}

/** The report of an instance whose tests never ran (no patch to apply). */
const NOT_RUN: InstanceReport = {
  patch_is_None: true,
  patch_exists: false,
  patch_successfully_applied: false,
  resolved: false,
};

/** The verdict when the participant gave no patch (rethrows a missing participant: a setup error). */
function participantErrorVerdict(err: unknown): Verdict {
  if (err instanceof BenchError && err.code === "E_NO_PARTICIPANT") throw err;
  return {
    status: "ERROR",
    report: { ...NOT_RUN },
    error: `participant: ${errorMessage(err)}`,
    failureMode: participantFailureMode(err),
    modelName: PARTICIPANT_MODEL_NAME,
    submitted: false,
    touchesTestConfig: [],
  };
}

/**
 * A sandbox with environments: the instance is graded in its own image (container/evaluate.ts). The
 * host tree is only checked out when the participant's prompt needs the repository.
 */
async function evaluateInstanceInContainer(
  inst: SwebenchInstance,
  ctx: EvaluateContext,
  checkout: Checkout,
  artifacts: string,
): Promise<Verdict> {
  let got: { patch: string | null; modelName: string; submitted: boolean };
  if (ctx.options.predictions) {
    got = await modelPatch(inst, null, ctx);
  } else {
    const repoDir = locateRepo(await reposDirFor(ctx.options), inst.repo);
    const tree = await checkout.acquire(repoDir, inst.base_commit);
    try {
      got = await modelPatch(inst, tree, ctx);
    } catch (err) {
      return participantErrorVerdict(err);
    } finally {
      await checkout.release(repoDir, tree, !ctx.signal.aborted).catch(() => undefined);
    }
  }
  const patch = got.patch;
  const report: InstanceReport = {
    patch_is_None: patch === null,
    patch_exists: patch !== null && patch.trim() !== "",
    patch_successfully_applied: false,
    resolved: false,
  };
  if (patch !== null) await writeFileAtomic(join(artifacts, "patch.diff"), patch);
  if (!report.patch_exists)
    return {
      status: "EMPTY_PATCH",
      report,
      error: null,
      failureMode: "model_empty_patch",
      modelName: got.modelName,
      submitted: got.submitted,
      touchesTestConfig: [],
    };
  return evaluateInContainer(inst, patch!, got, ctx, artifacts);
}

/**
 * Interactive: the participant works in an environment of the sandbox (episode.ts); the change it
 * leaves is graded as a prediction the single-shot path's way, in a fresh place: a fresh environment
 * of the instance's image on the environment path, a fresh checkout on the host path.
 */
async function evaluateEpisode(
  inst: SwebenchInstance,
  ctx: EvaluateContext,
  artifacts: string,
  grading: { path: "environment" | "host"; checkout: Checkout },
): Promise<Verdict> {
  const { runInstanceEpisode } = await import("./episode.js");
  const got = await runInstanceEpisode(inst, ctx, artifacts, (e) => ctx.onTurn?.(e));
  const episode = { record: got.record, trajectory: got.trajectory };
  const source = { modelName: PARTICIPANT_MODEL_NAME, submitted: true, touchesTestConfig: [] };
  if (got.patch === null) {
    const canceled = got.record.exit_status === "canceled" || ctx.signal.aborted;
    return {
      ...source,
      status: "ERROR",
      report: { ...NOT_RUN },
      error: got.infraError ?? "no change could be taken from the environment",
      failureMode: canceled ? "infrastructure_cancelled" : "infrastructure_sandbox",
      episode,
    };
  }
  await writeFileAtomic(join(artifacts, "patch.diff"), got.patch);
  if (got.patch.trim() === "")
    return {
      ...source,
      status: "EMPTY_PATCH",
      report: { patch_is_None: false, patch_exists: false, patch_successfully_applied: false, resolved: false },
      error: got.changeError ?? null,
      failureMode: "model_empty_patch",
      episode,
    };
  if (grading.path === "environment")
    return { ...(await evaluateInContainer(inst, got.patch, source, ctx, artifacts)), episode };
  const given = { patch: got.patch, modelName: PARTICIPANT_MODEL_NAME, submitted: true };
  return { ...(await evaluateInstance(inst, ctx, grading.checkout, artifacts, given)), episode };
}

/** What {@link runTests} needs: the patched tree, the model's patch and how it went in. */
interface TestRun {
  inst: SwebenchInstance;
  ctx: EvaluateContext;
  spec: ReturnType<typeof testSpecFor>;
  worktree: string;
  patch: string;
  base: { modelName: string; submitted: boolean; touchesTestConfig: string[] };
  flags: TestConfigFlag[];
  interpreterMissing: boolean;
  applyStrategy: string;
  rules: ReturnType<typeof ruleSet>;
  /** The test patch's application log, put before the test output in the graded log. */
  preamble: string;
  artifacts: string;
}

/** Run the instance's tests in the patched tree, grade the log and keep it with the artifacts. */
async function runTests(r: TestRun): Promise<Verdict> {
  const { inst, ctx, spec } = r;
  // stderr joins stdout so the log keeps the order the tests wrote in. No marker and no nonce
  // reach the test process: gradeTestRun draws the nonce after it has ended and writes the log.
  const outcome = await ctx.sandbox.exec(
    {
      language: "bash",
      code: `exec 2>&1\n${spec.command}`,
      timeoutMs: ctx.options.per_task_timeout_seconds * 1000,
      workDir: r.worktree,
      env: { ...spec.env },
    },
    ctx.signal,
  );
  const { verdict, log } = gradeTestRun({
    inst,
    patch: r.patch,
    modelName: r.base.modelName,
    submitted: r.base.submitted,
    applyStrategy: r.applyStrategy,
    testConfigFlags: r.flags,
    framework: spec.framework,
    rules: r.rules,
    preamble: `${r.preamble}\n+ ${spec.command}`,
    testOutput: outcome.stderrTail ? `${outcome.stdoutTail}\n${outcome.stderrTail}` : outcome.stdoutTail,
    exitCode: outcome.exitCode,
    timedOut: outcome.timedOut,
    canceled: outcome.isCanceled || ctx.signal.aborted,
    ...(outcome.infraError ? { infraError: outcome.infraError } : {}),
    strictTests: ctx.options.strict_tests,
    timeoutSeconds: ctx.options.per_task_timeout_seconds,
  });
  await writeFileAtomic(join(r.artifacts, "test_output.txt"), log);
  return r.interpreterMissing ? { ...verdict, interpreterMissing: true } : verdict;
}

/**
 * Check the sandbox's python3 and the test tools before any patch. A missing interpreter is graded
 * as the named release grades an image without one (rules.ts): the tests run, fail to start, and
 * the log without results is the model's (returns true). Any other missing tool is our error.
 */
async function checkTools(
  ctx: EvaluateContext,
  requires: readonly string[],
  rules: ReturnType<typeof ruleSet>,
  instanceId: string,
): Promise<boolean> {
  try {
    await ensureSandboxPython(ctx.sandbox, requires, ctx.signal);
    return false;
  } catch (err) {
    const missing = err instanceof SwebenchInfraError && err.code === SWEBENCH_ERROR_CODES.PYTHON_MISSING;
    if (!missing || !rules.missingInterpreterIsModelFailure) throw err;
    ctx.logger.warn(
      { instance: instanceId, rules: rules.version },
      "python3 is missing in the sandbox: graded as the official release grades an image without its interpreter (unresolved)",
    );
    return true;
  }
}

/**
 * The host path: the instance's tree at the base commit, the model patch (`given`: an episode's change;
 * else the predictions file or the participant), graded on that tree with the tests in the sandbox.
 */
async function evaluateInstance(
  inst: SwebenchInstance,
  ctx: EvaluateContext,
  checkout: Checkout,
  artifacts: string,
  given?: { patch: string; modelName: string; submitted: boolean },
): Promise<Verdict> {
  const rules = ruleSet(ctx.options.swebench_rules);
  await ensureGit();
  const spec = testSpecFor(inst);
  const reposDir = await reposDirFor(ctx.options);
  const repoDir = locateRepo(reposDir, inst.repo);
  const interpreterMissing = await checkTools(ctx, spec.requires, rules, inst.instance_id);
  const scratch = join(ctx.workDir, "swebench", `${safeName(inst.instance_id)}-${randomBytes(4).toString("hex")}`);
  await mkdir(scratch, { recursive: true });
  let tree: Tree | null = null;
  try {
    tree = await checkout.acquire(repoDir, inst.base_commit);
    let got: { patch: string | null; modelName: string; submitted: boolean };
    if (given !== undefined) got = given;
    else
      try {
        got = await modelPatch(inst, tree, ctx);
      } catch (err) {
        return participantErrorVerdict(err);
      }
    return await gradePatch({ inst, ctx, spec, rules, tree, got, scratch, artifacts, interpreterMissing });
  } finally {
    // A cancelled instance may have left its tree mid-way (e.g. a sandbox still giving it back): not reused.
    if (tree) await checkout.release(repoDir, tree, !ctx.signal.aborted).catch(() => undefined);
    await removeTree(scratch).catch((err: Error) =>
      ctx.logger.error(
        { code: (err as { code?: string }).code, err: err.message },
        "removing an instance's scratch failed",
      ),
    );
  }
}

/** One instance's patch on its tree at the base commit (host path). */
interface PatchGrading {
  inst: SwebenchInstance;
  ctx: EvaluateContext;
  spec: ReturnType<typeof testSpecFor>;
  rules: ReturnType<typeof ruleSet>;
  tree: Tree;
  got: { patch: string | null; modelName: string; submitted: boolean };
  scratch: string;
  artifacts: string;
  interpreterMissing: boolean;
}

/**
 * Inventory the tree before the patch, apply it the named release's way, reset the test files and
 * apply test_patch, inventory it again, run the tests and grade them.
 */
async function gradePatch(g: PatchGrading): Promise<Verdict> {
  const { inst, ctx, spec, tree, got, scratch, artifacts } = g;
  const patch = got.patch;
  const base = { modelName: got.modelName, submitted: got.submitted, touchesTestConfig: [] as string[] };
  const report: InstanceReport = {
    patch_is_None: patch === null,
    patch_exists: patch !== null && patch.trim() !== "",
    patch_successfully_applied: false,
    resolved: false,
  };
  if (patch !== null) await writeFileAtomic(join(artifacts, "patch.diff"), patch);
  if (patch === null || !report.patch_exists)
    return { ...base, status: "EMPTY_PATCH", report, error: null, failureMode: "model_empty_patch" };
  const target: Omit<ProbeTarget, "workDir"> = {
    sandbox: ctx.sandbox,
    tests: probeArgs(inst),
    env: spec.env,
    runner: runsPytest(spec.command),
    timeoutMs: ctx.options.per_task_timeout_seconds * 1000,
    signal: ctx.signal,
  };
  // Without an interpreter neither probe can run: nothing to compare.
  const before = g.interpreterMissing ? null : await baselineInventory(inst, tree, scratch, target);
  const applied = await applyPatch(tree, patch, scratch, "model.patch", g.rules);
  await writeFileAtomic(join(artifacts, "apply.log"), applied.log + "\n");
  if (!applied.applied) {
    return {
      ...base,
      status: "PATCH_APPLY_FAILED",
      report,
      error: "patch does not apply",
      failureMode: "model_patch_does_not_apply",
      applyStrategy: null,
    };
  }
  let preamble: string;
  try {
    preamble = await applyTestPatch(inst, tree, scratch);
  } catch (err) {
    // The baseline applied test_patch to the base commit of this tree, so only the model patch can make it
    // fail now (e.g. a file where test_patch creates a directory): the model's failure, never an
    // infrastructure row it could void the run with.
    if (before === null || !(err instanceof BenchError) || err.code !== "E_TEST_PATCH") throw err;
    return {
      ...base,
      status: "RESOLVED_NO",
      report: { ...report, patch_successfully_applied: true },
      error: `test_patch no longer applies after the model patch: ${errorMessage(err)}`,
      failureMode: "model_breaks_test_patch",
      applyStrategy: applied.strategy!,
    };
  }
  const flags = await testConfigFlags(inst, tree, patch, before, target);
  return runTests({
    inst,
    ctx,
    spec,
    worktree: tree.path,
    patch,
    base,
    flags,
    interpreterMissing: g.interpreterMissing,
    applyStrategy: applied.strategy!,
    rules: g.rules,
    preamble,
    artifacts,
  });
}

async function loadItems(options: RunOptions, logger: Logger): Promise<SwebenchItem[]> {
  const dataset = options.dataset;
  // The embedded set is built with git: a missing git is our infrastructure error, said first.
  if (dataset === SAMPLE_DATASET) await ensureGit();
  const instances =
    dataset === SAMPLE_DATASET ? (await ensureSampleDataset()).instances : await loadInstanceFile(resolve(dataset));
  logger.debug({ count: instances.length, dataset }, "swebench instances loaded");
  return instances.map((instance) => ({ id: instance.instance_id, instance }));
}

async function describeDataset(options: RunOptions): Promise<DatasetInfo> {
  const dataset = options.dataset;
  const instances =
    dataset === SAMPLE_DATASET ? (await ensureSampleDataset()).instances : await loadInstanceFile(resolve(dataset));
  return {
    path: dataset === SAMPLE_DATASET ? SAMPLE_DATASET : resolve(dataset),
    sha256: createHash("sha256").update(JSON.stringify(instances)).digest("hex"),
  };
}

/** The verdict when setting the instance up failed on our side (tools, test patch, checkout). */
function setupErrorVerdict(err: unknown): Verdict {
  const code = err instanceof BenchError ? err.code : "E_SWEBENCH";
  return {
    status: "ERROR",
    report: { ...NOT_RUN },
    error: `${code}: ${errorMessage(err)}`,
    errorCode: code,
    failureMode:
      err instanceof SwebenchInfraError
        ? "infrastructure_tool_missing"
        : code === "E_SWEBENCH_CANCELLED"
          ? "infrastructure_cancelled"
          : code === "E_TEST_PATCH"
            ? "infrastructure_test_patch"
            : "infrastructure_setup",
    modelName: "unknown",
    submitted: false,
    touchesTestConfig: [],
  };
}

/** Write the instance's report.json (the official harness's shape) and build its results row. */
async function recordVerdict(
  item: SwebenchItem,
  verdict: Verdict,
  options: RunOptions,
  artifacts: string,
  started: number,
): Promise<SwebenchRow> {
  const reportPath = join(artifacts, "report.json");
  const reportJson = { [item.id]: verdict.report };
  assertValid("swebench_report.schema.json", reportJson, `${item.id} report.json`);
  await writeJsonAtomic(reportPath, reportJson);
  const row: SwebenchRow = {
    id: item.id,
    status: verdict.status,
    passed: verdict.status === "RESOLVED_FULL",
    elapsed_seconds: (performance.now() - started) / 1000,
    error: verdict.error,
    model_name_or_path: verdict.modelName,
    submitted: verdict.submitted,
    ...verdict.report,
    apply_strategy: verdict.applyStrategy ?? null,
    touches_test_config: verdict.touchesTestConfig,
    test_config_flags: verdict.testConfigFlags ?? [],
    resolved_strict:
      verdict.report.resolved && (verdict.testConfigFlags ?? []).length === 0 && verdict.touchesTestConfig.length === 0,
    grading_rules: ruleSet(options.swebench_rules).version,
    report_path: reportPath,
    artifacts_dir: artifacts,
  };
  if (verdict.failureMode) row.failure_mode = verdict.failureMode;
  if (verdict.errorCode) row.error_code = verdict.errorCode;
  if (verdict.strictVoided) row.strict_tests_voided = true;
  if (verdict.interpreterMissing) row.interpreter_missing = true;
  if (verdict.logVoid) row.log_void = verdict.logVoid;
  if (verdict.infraSignature) row.infra_signature = verdict.infraSignature;
  if (verdict.episode) Object.assign(row, episodeFields(verdict.episode));
  return row;
}

function withoutFlag(usage: TokenUsage & { self_reported: true }): TokenUsage {
  const { self_reported: _flag, ...rest } = usage;
  return rest;
}

/** The row fields of an interactive item: how its episode ended and what it cost. */
function episodeFields(episode: { record: EpisodeRecord; trajectory: string }): Partial<SwebenchRow> {
  const r = episode.record;
  return {
    interaction: "interactive",
    exit_status: r.exit_status,
    turns: r.turns,
    commands: r.commands,
    command_seconds: r.command_seconds,
    participant_seconds: r.participant_seconds,
    truncations: r.truncations,
    trajectory: episode.trajectory,
    // The participant's own report (the row's `usage` is always the participant's word).
    ...(r.usage ? { usage: withoutFlag(r.usage) } : {}),
    ...(r.error ? { episode_error: r.error } : {}),
  };
}

/** Name under which SWE-bench asks for sandbox capabilities. */
const CALLER = "swebench";

/**
 * How this sandbox grades: in environments of each instance's image (`environments` with `images`), or
 * on host trees with the tests in the sandbox. SandboxCapabilityError (the run stops) when it offers neither.
 */
export function gradingPath(sandbox: Sandbox): "environment" | "host" {
  if (sandbox.capabilities.has("environments") && sandbox.capabilities.has("images")) return "environment";
  if (sandbox.capabilities.has("host-workdir")) return "host";
  throw new SandboxCapabilityError(
    sandbox.backend,
    "environments",
    CALLER,
    "use a backend that opens per-instance environments (sandbox: docker), or one that runs the tests in a host work dir (capability 'host-workdir': sandbox: local)",
  );
}

/** Create the `swebench` benchmark definition. */
export function createSwebenchBenchmark(): BenchmarkDefinition<SwebenchItem> {
  /** One checkout (and its pool of trees) per run, keyed by the run's work directory. */
  const checkouts = new Map<string, Checkout>();
  const checkoutOf = (ctx: EvaluateContext): Checkout => {
    let c = checkouts.get(ctx.workDir);
    if (!c) {
      // As many idle trees as items in flight: a run over instances grouped by repository (as
      // SWE-bench's files are) reuses every tree, and disk use is bounded by concurrency.
      c = createCheckout(
        ctx.options.checkout,
        join(ctx.workDir, "swebench", "trees"),
        ctx.logger,
        ctx.options.concurrency,
      );
      checkouts.set(ctx.workDir, c);
    }
    return c;
  };
  const verdictOf = async (item: SwebenchItem, ctx: EvaluateContext, artifacts: string): Promise<Verdict> => {
    // Outside the try: a sandbox that cannot grade SWE-bench stops the run (our configuration, no score).
    const path = gradingPath(ctx.sandbox);
    if (ctx.options.interaction === "interactive" && !ctx.sandbox.capabilities.has("environments"))
      throw new SandboxCapabilityError(
        ctx.sandbox.backend,
        "environments",
        CALLER,
        "interactive swebench hosts each instance in its own environment: use sandbox: docker, or sandbox: local at bwrap isolation",
      );
    try {
      if (ctx.options.interaction === "interactive")
        return await evaluateEpisode(item.instance, ctx, artifacts, { path, checkout: checkoutOf(ctx) });
      if (path === "host") return await evaluateInstance(item.instance, ctx, checkoutOf(ctx), artifacts);
      return await evaluateInstanceInContainer(item.instance, ctx, checkoutOf(ctx), artifacts);
    } catch (err) {
      if (err instanceof SandboxCapabilityError) throw err;
      return setupErrorVerdict(err);
    }
  };
  return {
    name: "swebench",
    loadItems,
    describeDataset,
    needsParticipant: benchmarkNeedsParticipant,
    async evaluate(item: SwebenchItem, ctx: EvaluateContext): Promise<SwebenchRow> {
      const started = performance.now();
      const artifacts = artifactDir(ctx.options, item.id);
      const verdict = await verdictOf(item, ctx, artifacts);
      return recordVerdict(item, verdict, ctx.options, artifacts, started);
    },
    aggregate: (rows: ItemResult[], options: RunOptions): Record<string, unknown> => aggregateSwebench(rows, options),
    scoreMetric: "resolved_rate",
    async endRun({ workDir }): Promise<void> {
      const c = checkouts.get(workDir);
      checkouts.delete(workDir);
      await c?.close();
    },
  };
}
