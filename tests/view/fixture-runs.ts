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

/** An answer that would run script in the page if it were ever rendered as markup. */
export const HOSTILE_ANSWER = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2;alert(1)">`;
export const TRAJECTORY_FIXTURE = fileURLToPath(new URL("../fixtures/view/trajectory.jsonl", import.meta.url));

/**
 * `<root>/humaneval/<runId>`, made by `a2a-bench run humaneval --predictions` over the embedded
 * 12-problem set: each problem with its reference completion, plus a wrong one for the problems
 * numbered in `wrong` and the hostile answer for those in `hostile`.
 */
export function makeHumanEvalRun(root: string, runId: string, opts: { wrong: number[]; hostile: number[] }): string {
  const problems = SAMPLE_PROBLEMS;
  const lines: string[] = [];
  problems.forEach((p, i) => {
    lines.push(JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution }));
    if (opts.wrong.includes(i)) lines.push(JSON.stringify({ task_id: p.task_id, completion: "    return None\n" }));
    if (opts.hostile.includes(i)) lines.push(JSON.stringify({ task_id: p.task_id, completion: HOSTILE_ANSWER }));
  });
  const samples = join(dirname(root), `${runId}-samples.jsonl`); // beside the results, not in them
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
