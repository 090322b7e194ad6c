/**
 * Run directories for the viewer's tests: real HumanEval runs made through
 * the built CLI from a samples file (no participant), and a hand-made run
 * whose row links a trajectory (interactive runs do not exist yet).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SAMPLE_PROBLEMS } from "../../src/benchmarks/humaneval/sample-dataset.js";
import { cliEntry } from "../../src/util/package-root.js";
import { ensureSampleDataset } from "../../src/benchmarks/swebench/sample-dataset.js";
import { buildBundle } from "../../src/bundle/build.js";
import { readRunFiles } from "../../src/bundle/run-files.js";

/** An answer that would run script in the page if it were ever rendered as markup. */
export const HOSTILE_ANSWER = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2;alert(1)">`;
export const TRAJECTORY_FIXTURE = fileURLToPath(new URL("../fixtures/view/trajectory.jsonl", import.meta.url));

/**
 * `<root>/humaneval/<runId>`, made by `a2a-bench run humaneval --predictions` over the embedded
 * 12-problem set: each problem with its reference completion, plus a wrong one for the problems
 * numbered in `wrong` and the hostile answer for those in `hostile`.
 */
export function makeHumanEvalRun(
  root: string,
  runId: string,
  opts: { wrong: number[]; hostile: number[]; participant?: string },
): string {
  const problems = SAMPLE_PROBLEMS;
  const lines: string[] = [];
  problems.forEach((p, i) => {
    lines.push(JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution }));
    if (opts.wrong.includes(i)) lines.push(JSON.stringify({ task_id: p.task_id, completion: "    return None\n" }));
    if (opts.hostile.includes(i)) lines.push(JSON.stringify({ task_id: p.task_id, completion: HOSTILE_ANSWER }));
  });
  // Beside the results, not in them; its name is the run's participant (runs sharing it are one participant).
  const samples = join(dirname(root), `${opts.participant ?? runId}-samples.jsonl`);
  mkdirSync(dirname(root), { recursive: true });
  writeFileSync(samples, lines.join("\n") + "\n");
  const out = join(root, "humaneval", runId);
  const r = spawnSync(
    process.execPath,
    [cliEntry, "run", "humaneval", "--predictions", samples, "--run-id", runId, "--out", out, "--json"],
    { encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  if (r.status !== 0) throw new Error(`run ${runId} failed (${r.status}): ${r.stderr}`);
  return out;
}

/** `<root>/interactive/traj`: a hand-made finished run of one item whose row names its trajectory file. */
export function makeTrajectoryRun(root: string): string {
  const out = join(root, "interactive", "traj");
  mkdirSync(join(out, "trajectories"), { recursive: true });
  copyFileSync(TRAJECTORY_FIXTURE, join(out, "trajectories", "task-1.jsonl"));
  const row = {
    id: "task-1",
    status: "failed",
    passed: false,
    elapsed_seconds: 2.5,
    failure_mode: "model_wrong_answer",
    reason: "the tests still fail after the last turn",
    prompt: "Fix the failing test in /repo.",
    trajectory: "trajectories/task-1.jsonl",
  };
  writeFileSync(
    join(out, "results.json"),
    JSON.stringify({
      schema_version: 1,
      benchmark: "interactive-fixture",
      run_id: "traj",
      status: "ok",
      error: null,
      config: { agent: "http://127.0.0.1:9/" },
      isolation: { backend: "local", level: "bwrap", warnings: [] },
      dataset: { path: "sample", sha256: "0".repeat(64) },
      rows: [row],
      aggregate: { failure_modes: { model_wrong_answer: 1 }, accuracy: 0 },
    }),
  );
  return out;
}

/**
 * `<root>/humaneval/large`: a hand-made finished HumanEval-shaped run of `tasks` tasks × `n`
 * completions; completion s of task t fails when (s + t) % 5 === 0.
 */
export function makeLargeRun(root: string, tasks: number, n: number): string {
  const out = join(root, "humaneval", "large");
  mkdirSync(out, { recursive: true });
  const rows = Array.from({ length: tasks }, (_, t) => {
    const samples = Array.from({ length: n }, (_, s) => {
      const passed = (s + t) % 5 !== 0;
      return {
        status: passed ? "passed" : "failed",
        failure_mode: passed ? null : "model_wrong_answer",
        completion: `    return ${s}\n`,
        duration_ms: 10 + s,
        reason: passed ? null : `wrong answer ${s}`,
      };
    });
    const correct = samples.filter((x) => x.status === "passed").length;
    return {
      id: `Large/${t}`,
      status: correct === n ? "passed" : "failed",
      passed: correct === n,
      elapsed_seconds: 0.5 + t / 100,
      n,
      num_correct: correct,
      samples,
    };
  });
  writeFileSync(
    join(out, "results.json"),
    JSON.stringify({
      schema_version: 1,
      benchmark: "humaneval",
      run_id: "large",
      status: "ok",
      error: null,
      config: {},
      isolation: { backend: "local", level: "bwrap", warnings: [] },
      dataset: { path: "sample", sha256: "0".repeat(64) },
      rows,
      aggregate: { pass_at_k: { "pass@1": 0.8 }, failure_modes: { model_wrong_answer: (tasks * n) / 5 } },
    }),
  );
  return out;
}

/**
 * `<root>/swebench/<runId>`, made by `a2a-bench run swebench --dataset sample --predictions` over
 * the embedded sample set: every instance with its gold patch but the one at `empty`, whose patch is
 * empty. Returns the run directory and the instances.
 */
export async function makeSwebenchRun(
  root: string,
  runId: string,
  empty: number,
): Promise<{ out: string; instances: Awaited<ReturnType<typeof ensureSampleDataset>>["instances"] }> {
  const { instances } = await ensureSampleDataset();
  const predictions = join(dirname(root), `${runId}-predictions.jsonl`);
  writeFileSync(
    predictions,
    instances
      .map((inst, i) =>
        JSON.stringify({
          instance_id: inst.instance_id,
          model_name_or_path: runId,
          model_patch: i === empty ? "" : inst.patch,
        }),
      )
      .join("\n") + "\n",
  );
  const out = join(root, "swebench", runId);
  const r = spawnSync(
    process.execPath,
    [cliEntry, "run", "swebench", "--dataset", "sample", "--predictions", predictions, "--run-id", runId, "--out", out],
    { encoding: "utf8", timeout: 120_000, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  if (r.status !== 0) throw new Error(`swebench run ${runId} failed (${r.status}): ${r.stderr}`);
  return { out, instances };
}

/** The last line a runner that could not read its dataset printed, in the failed green run below. */
export const GREEN_FAILURE_LINE = "E_INPUT_FILE: /data/missing.jsonl: cannot read dataset (ENOENT)";

/**
 * `<root>/humaneval/<runId>`: what the green agent leaves when its runner exits 1 before writing
 * anything — the resolved config it handed the runner (config.json) and the evaluation bundle the
 * real builder makes of that outcome (evaluation_bundle.json, status runner_failed).
 */
export async function makeGreenFailedRun(root: string, runId: string): Promise<string> {
  const out = join(root, "humaneval", runId);
  mkdirSync(out, { recursive: true });
  const config = {
    benchmark: "humaneval",
    run_id: runId,
    agent: "http://127.0.0.1:9/",
    dataset: "/data/missing.jsonl",
  };
  writeFileSync(join(out, "config.json"), JSON.stringify(config));
  const artifacts = {
    results_path: join(out, "results.json"),
    run_metadata_path: join(out, "run_metadata.json"),
    events_path: join(out, "events.jsonl"),
  };
  const bundle = buildBundle({
    benchmark: "humaneval",
    runId,
    config,
    participants: { agent: config.agent },
    outcome: {
      exitCode: 1,
      signal: null,
      terminationReason: null,
      timedOut: false,
      isCanceled: false,
      isForcefullyTerminated: false,
      spawnError: null,
      startedAtMs: 1_700_000_000_000,
      finishedAtMs: 1_700_000_001_000,
      durationMs: 1_000,
      outputTail: [GREEN_FAILURE_LINE],
    },
    artifacts,
    files: await readRunFiles(artifacts),
  });
  writeFileSync(join(out, "evaluation_bundle.json"), JSON.stringify(bundle));
  return out;
}
