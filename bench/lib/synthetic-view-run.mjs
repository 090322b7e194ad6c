/**
 * A synthetic HumanEval-shaped run for the viewer's bench: 164 tasks × n
 * completions (n = 200 → 32,800), written as the runner writes them
 * (results.json, run_metadata.json, events.jsonl), with completion texts,
 * test output tails and reasons of realistic length. Deterministic.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const MODES = ["model_wrong_answer", "model_wrong_answer", "model_runtime_error", "timeout", "model_syntax_error"];

export function writeSyntheticRun(dir, { tasks = 164, n = 200, runId = "synthetic-n200" } = {}) {
  mkdirSync(dir, { recursive: true });
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const rows = [];
  const events = [];
  const t0 = 1_790_000_000;
  events.push({
    ts: t0,
    event: "run_started",
    run_id: runId,
    benchmark: "humaneval",
    total: tasks,
    resumed: 0,
    dataset: "humaneval-full",
    isolation: "bwrap",
  });
  for (let t = 0; t < tasks; t++) {
    const id = `HumanEval/${t}`;
    const difficulty = rand();
    const samples = [];
    let correct = 0;
    for (let s = 0; s < n; s++) {
      const passed = rand() > difficulty;
      const mode = passed ? null : MODES[Math.floor(rand() * MODES.length)];
      if (passed) correct++;
      samples.push({
        completion_kind: "body",
        completion: `    # sample ${s} of ${id}\n    result = []\n    for i, v in enumerate(values):\n        if v % ${s + 2} == 0:\n            result.append(v * ${t})\n    return sorted(result)${passed ? "" : "[::-1]"}\n`,
        agent_seconds: Math.round(rand() * 4000) / 1000,
        status: passed ? "passed" : mode === "timeout" ? "timeout" : mode === "model_syntax_error" ? "error" : "failed",
        failure_mode: mode,
        limit_breach: false,
        executed: true,
        duration_ms: Math.round(5 + rand() * (mode === "timeout" ? 3000 : 60)),
        exit_code: passed ? 0 : 1,
        signal: null,
        exception: passed ? null : "AssertionError",
        reason: passed ? null : `check() assertion failed after call ${Math.floor(rand() * 7)}`,
        rounds: 1,
        calls: 7,
        stdout_tail:
          Array.from({ length: 7 }, (_, i) => `{"i": ${i}, "ok": ${passed || i < 3 ? "true" : "null"}}`).join("\n") +
          "\n",
        stderr_tail: passed
          ? ""
          : 'Traceback (most recent call last):\n  File "solution.py", line 12, in check\nAssertionError\n',
        usage: { prompt_tokens: 180, completion_tokens: 60 + (s % 40), total_tokens: 240 + (s % 40), requests: 1 },
      });
    }
    const first = samples.find((x) => x.status !== "passed");
    const elapsed = Math.round(samples.reduce((a, x) => a + x.duration_ms, 0)) / 1000;
    rows.push({
      id,
      task_id: id,
      entry_point: `task_${t}`,
      status: first ? first.status : "passed",
      passed: !first,
      elapsed_seconds: elapsed,
      ...(first ? { failure_mode: first.failure_mode, reason: first.reason } : {}),
      error: null,
      n,
      num_correct: correct,
      samples,
    });
    events.push({
      ts: t0 + t,
      event: "task_finished",
      task_id: id,
      i: t,
      status: rows[t].status,
      passed: rows[t].passed,
      elapsed_seconds: elapsed,
      done: t + 1,
      total: tasks,
    });
  }
  const failureModes = {};
  for (const r of rows)
    for (const s of r.samples)
      if (s.failure_mode) failureModes[s.failure_mode] = (failureModes[s.failure_mode] ?? 0) + 1;
  const aggregate = {
    pass_at_k: { "pass@1": rows.reduce((a, r) => a + r.num_correct / n, 0) / tasks, "pass@10": null, "pass@100": null },
    failure_modes: failureModes,
  };
  events.push({ ts: t0 + tasks, event: "run_finished", status: "ok", error: null, aggregate });
  const config = {
    benchmark: "humaneval",
    dataset: "humaneval-full",
    n,
    k: [1, 10, 100],
    agent: "http://127.0.0.1:9998/",
    run_id: runId,
  };
  writeFileSync(
    join(dir, "results.json"),
    JSON.stringify(
      {
        schema_version: 1,
        benchmark: "humaneval",
        run_id: runId,
        status: "ok",
        error: null,
        config,
        isolation: { backend: "local", level: "bwrap", warnings: [] },
        dataset: { path: "humaneval-full", sha256: "0".repeat(64) },
        rows,
        aggregate,
      },
      null,
      2,
    ) + "\n",
  );
  writeFileSync(
    join(dir, "run_metadata.json"),
    JSON.stringify({
      schema_version: 1,
      run_id: runId,
      benchmark: "humaneval",
      timings: { started_at_unix_seconds: t0, finished_at_unix_seconds: t0 + tasks, elapsed_seconds: tasks },
      sandbox: { backend: "local", isolation: "bwrap", warnings: [] },
      agent: config.agent,
      items: { in_dataset: tasks, selected: tasks, resumed: 0, evaluated: tasks },
      config,
    }),
  );
  writeFileSync(join(dir, "events.jsonl"), events.map((e) => JSON.stringify(e)).join("\n") + "\n");
  return { tasks, completions: tasks * n };
}
