/**
 * HumanEval memory growth: the whole runner (`run humaneval --predictions`)
 * scoring n = 1, 20, 200 gold completions per task (the canonical solution n
 * times per task, OpenAI's samples format), reporting the runner process's
 * peak RSS (`/usr/bin/time -v`, else VmHWM of /proc/<pid>/status polled while
 * it runs) and wall time per completion. A runner that streams its rows to
 * disk keeps its peak flat in n. The full dataset when present, else the
 * embedded 12-task sample. `A2A_BENCH_GROWTH_N` (comma list) overrides the n
 * values; `--quick` runs n = 1, 20.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "../lib/paths.mjs";
import { goldProblems, humanEvalPath } from "../lib/humaneval-data.mjs";

const TIME = "/usr/bin/time";

/** Peak RSS in kB of a finished `time -v` run, from its stderr. */
function timePeakKb(stderr) {
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  return m ? Number(m[1]) : null;
}

/** VmHWM (kB) of a live process, or null when it is gone. */
function vmHwmKb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** One CLI run; resolves with exit code, wall ms, peak RSS kB and stderr's tail. */
function runMeasured(args) {
  const useTime = existsSync(TIME);
  const [file, argv] = useTime ? [TIME, ["-v", process.execPath, CLI, ...args]] : [process.execPath, [CLI, ...args]];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(file, argv, {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, LOG_LEVEL: "silent" },
    });
    let stderr = "";
    let polled = null;
    child.stderr.on("data", (d) => {
      stderr = (stderr + d).slice(-20000);
    });
    const poll = useTime
      ? null
      : setInterval(() => {
          const kb = vmHwmKb(child.pid);
          if (kb !== null) polled = Math.max(polled ?? 0, kb);
        }, 20);
    child.on("error", reject);
    child.on("close", (code) => {
      if (poll) clearInterval(poll);
      resolve({ code, ms: performance.now() - t0, peakKb: useTime ? timePeakKb(stderr) : polled, stderr });
    });
  });
}

export async function runHumanEvalGrowth(ctx) {
  const full = humanEvalPath() !== null;
  const dataset = full ? "humaneval-full" : "sample";
  const problems = full
    ? await goldProblems()
    : (await import("../../dist/benchmarks/humaneval/sample-dataset.js")).SAMPLE_PROBLEMS;
  const ns = (process.env.A2A_BENCH_GROWTH_N ?? (ctx.quick ? "1,20" : "1,20,200")).split(",").map(Number);
  const tmp = mkdtempSync(join(tmpdir(), "a2a-bench-growth-"));
  const figures = [];
  try {
    for (const n of ns) {
      const samples = join(tmp, `gold-${n}.jsonl`);
      const lines = [];
      for (const p of problems)
        for (let i = 0; i < n; i++)
          lines.push(JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution }));
      writeFileSync(samples, lines.join("\n") + "\n");
      const out = join(tmp, `out-${n}`);
      ctx.log(`humaneval-growth: n=${n} (${lines.length} completions)`);
      const r = await runMeasured([
        "run",
        "humaneval",
        "--dataset",
        dataset,
        "--predictions",
        samples,
        "--n",
        String(n),
        "--k",
        n >= 100 ? "1,10,100" : n >= 10 ? "1,10" : "1",
        "--out",
        out,
        "--run-id",
        `growth-${n}`,
      ]);
      const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
      if (r.code !== 0 || res.aggregate?.pass_at_k?.["pass@1"] !== 1)
        throw new Error(
          `n=${n}: exit ${r.code}, pass@1 ${res.aggregate?.pass_at_k?.["pass@1"]}: ${r.stderr.slice(-300)}`,
        );
      rmSync(out, { recursive: true, force: true });
      figures.push({ n, completions: lines.length, peakMb: r.peakKb / 1024, msPerCompletion: r.ms / lines.length });
      ctx.log(`  peak ${(r.peakKb / 1024).toFixed(0)} MB, ${(r.ms / lines.length).toFixed(2)} ms/completion`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const first = figures[0];
  const last = figures[figures.length - 1];
  return [
    {
      id: "1g",
      measure: `HumanEval ${problems.length} gold × n, whole runner from a samples file: peak RSS and wall per completion (\`run humaneval --predictions\`, n = ${ns.join(", ")})`,
      figures: figures
        .map((f) => `n=${f.n}: peak ${f.peakMb.toFixed(0)} MB, ${f.msPerCompletion.toFixed(2)} ms/completion`)
        .join("; "),
      target: "peak RSS flat in n (largest n ≤ 1.5 × n=1)",
      met: figures.length > 1 ? last.peakMb <= 1.5 * first.peakMb : null,
      limit:
        "peak RSS: the runner process (`/usr/bin/time -v`, else VmHWM polled); rows stream to the checkpoint as they finish",
    },
  ];
}
