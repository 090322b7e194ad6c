/**
 * HumanEval memory growth: the whole runner (`run humaneval --predictions`)
 * scoring n = 1, 20, 200 gold completions per task (the canonical solution n
 * times per task, OpenAI's samples format), reporting the runner's peak RSS
 * and wall time per completion (row 1g: flat in n). At the largest n, OpenAI's
 * harness scores the SAME samples file against the same problems when
 * `HUMAN_EVAL_DIR` names its checkout (bench/lib/openai-harness.mjs): rows 1h
 * (peak RSS, ours ≤ 2× theirs) and 1i (wall, ours ≤ 0.3× theirs).
 *
 * Peak RSS is `/usr/bin/time -v`'s "Maximum resident set size": the largest
 * SINGLE process among the one it started and the descendants that process
 * waited for (the kernel's RUSAGE_CHILDREN max), never a sum. Ours: the node
 * runner (its python fork server, checker and jobs are smaller). OpenAI's: its
 * python main process (it forks a Manager and a Process per completion, from
 * 4 dispatch threads; a forked child's RSS does not exceed its parent's by
 * much). Beside it, each run's process tree is polled for the sum of its
 * processes' PSS (proportional set size, /proc/<pid>/smaps_rollup: shared
 * pages split among their sharers, so forks are not counted twice) — the
 * whole footprint, sampled every 250 ms, so a short spike can be missed.
 *
 * The full dataset when present, else the embedded 12-task sample.
 * `A2A_BENCH_GROWTH_N` (comma list) overrides the n values; `--quick` runs
 * n = 1, 20; `A2A_BENCH_GROWTH_TASKS=N` scores the first N tasks only (both
 * sides, through a problems file holding them: for a loaded machine, where
 * OpenAI's harness at n = 200 on all 164 tasks takes hours).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "../lib/paths.mjs";
import { goldProblems, humanEvalPath } from "../lib/humaneval-data.mjs";
import { openAiHarnessCommand, openAiHarnessSetup } from "../lib/openai-harness.mjs";

const TIME = "/usr/bin/time";
/** How often the process tree's PSS is sampled, ms. */
const TREE_POLL_MS = 250;

/** Peak RSS in kB of a finished `time -v` run, from its stderr. */
function timePeakKb(stderr) {
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  return m ? Number(m[1]) : null;
}

/** A /proc/<pid>/status field in kB, or null when the process is gone. */
function statusKb(pid, field) {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** pid → parent pid of every live process. */
function parents() {
  const out = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      out.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** Sum of PSS (kB) over `root` and its descendants (a process whose smaps cannot be read counts its RSS). */
function treePssKb(root) {
  const ppid = parents();
  const tree = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, parent] of ppid)
      if (!tree.has(pid) && tree.has(parent)) {
        tree.add(pid);
        grew = true;
      }
  }
  let kb = 0;
  for (const pid of tree) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"));
      kb += m ? Number(m[1]) : 0;
    } catch {
      kb += statusKb(pid, "VmRSS") ?? 0;
    }
  }
  return kb;
}

/**
 * Run `file args` to its end under `time -v` when present (else VmHWM of the process polled); resolves with
 * exit code, wall ms, peak RSS kB (see the module note), the tree's peak summed PSS kB, stdout and stderr's tail.
 */
function runMeasured(file, args, env = {}) {
  const useTime = existsSync(TIME);
  const [cmd, argv] = useTime ? [TIME, ["-v", file, ...args]] : [file, args];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, argv, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    let hwm = null;
    let treeKb = 0;
    child.stdout.on("data", (d) => {
      stdout = (stdout + d).slice(-20000);
    });
    child.stderr.on("data", (d) => {
      stderr = (stderr + d).slice(-20000);
    });
    const poll = setInterval(() => {
      treeKb = Math.max(treeKb, treePssKb(child.pid));
      const kb = statusKb(child.pid, "VmHWM");
      if (!useTime && kb !== null) hwm = Math.max(hwm ?? 0, kb);
    }, TREE_POLL_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearInterval(poll);
      const ms = performance.now() - t0;
      resolve({ code, ms, peakKb: useTime ? timePeakKb(stderr) : hwm, treeKb, stdout, stderr });
    });
  });
}

const kValues = (n) => (n >= 100 ? [1, 10, 100] : n >= 10 ? [1, 10] : [1]);
const mb = (kb) => (kb / 1024).toFixed(0);

/** Our runner on `samples`; throws unless it exits 0 with pass@1 = 1. */
async function runOurs(tmp, dataset, samples, n, completions) {
  const out = join(tmp, `out-${n}`);
  const r = await runMeasured(
    process.execPath,
    [CLI, "run", "humaneval", "--dataset", dataset, "--predictions", samples, "--n", String(n)].concat([
      "--k",
      kValues(n).join(","),
      "--out",
      out,
      "--run-id",
      `growth-${n}`,
    ]),
    { LOG_LEVEL: "silent" },
  );
  const res = existsSync(join(out, "results.json")) ? JSON.parse(readFileSync(join(out, "results.json"), "utf8")) : {};
  rmSync(out, { recursive: true, force: true });
  const agg = res.aggregate ?? {};
  if (r.code !== 0 || agg.pass_at_k?.["pass@1"] !== 1 || agg.n !== n || agg.total !== completions)
    throw new Error(
      `n=${n}: exit ${r.code}, pass@1 ${agg.pass_at_k?.["pass@1"]}, n ${agg.n}, total ${agg.total}: ${r.stderr.slice(-300)}`,
    );
  return r;
}

/** OpenAI's harness on the same samples file; throws unless it reports pass@1 = 1. */
async function runOpenAi(setup, samples, problemFile, n) {
  const { file, args, env } = openAiHarnessCommand(setup, samples, problemFile, kValues(n));
  const r = await runMeasured(file, args, env);
  if (r.code !== 0 || !/'pass@1': 1\.0/.test(r.stdout))
    throw new Error(`OpenAI's harness failed (exit ${r.code}): ${(r.stdout + r.stderr).slice(-400)}`);
  return r;
}

export async function runHumanEvalGrowth(ctx) {
  const full = humanEvalPath() !== null;
  let problems = full
    ? await goldProblems()
    : (await import("../../dist/benchmarks/humaneval/sample-dataset.js")).SAMPLE_PROBLEMS;
  const taskLimit = Number(process.env.A2A_BENCH_GROWTH_TASKS ?? 0);
  if (taskLimit > 0) problems = problems.slice(0, taskLimit);
  const ns = (process.env.A2A_BENCH_GROWTH_N ?? (ctx.quick ? "1,20" : "1,20,200")).split(",").map(Number);
  const setup = openAiHarnessSetup();
  const tmp = mkdtempSync(join(tmpdir(), "a2a-bench-growth-"));
  const figures = [];
  let baseline = null;
  try {
    // Both sides read the same problems: the dataset itself, or a file of the first N tasks.
    let dataset = full ? "humaneval-full" : "sample";
    let problemFile = full ? humanEvalPath() : null;
    if (taskLimit > 0 || !full) {
      problemFile = join(tmp, "problems.jsonl");
      writeFileSync(problemFile, problems.map((p) => JSON.stringify(p)).join("\n") + "\n");
      dataset = problemFile;
    }
    for (const n of ns) {
      const samples = join(tmp, `gold-${n}.jsonl`);
      const lines = [];
      for (const p of problems)
        for (let i = 0; i < n; i++)
          lines.push(JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution }));
      writeFileSync(samples, lines.join("\n") + "\n");
      ctx.log(`humaneval-growth: n=${n} (${problems.length} tasks, ${lines.length} completions)`);
      const r = await runOurs(tmp, dataset, samples, n, lines.length);
      const f = { n, completions: lines.length, peakMb: r.peakKb / 1024, treeMb: r.treeKb / 1024, ms: r.ms };
      figures.push(f);
      ctx.log(`  ours: peak ${mb(r.peakKb)} MB (tree PSS ${mb(r.treeKb)} MB), ${(r.ms / 1000).toFixed(1)} s`);
      if (n === ns[ns.length - 1] && !setup.absent) {
        ctx.log(`humaneval-growth: OpenAI's harness on the same ${lines.length} completions`);
        const b = await runOpenAi(setup, samples, problemFile, n);
        baseline = { n, completions: lines.length, peakMb: b.peakKb / 1024, treeMb: b.treeKb / 1024, ms: b.ms };
        ctx.log(`  OpenAI: peak ${mb(b.peakKb)} MB (tree PSS ${mb(b.treeKb)} MB), ${(b.ms / 1000).toFixed(1)} s`);
      }
      rmSync(samples, { force: true });
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const first = figures[0];
  const last = figures[figures.length - 1];
  const scope = `${problems.length} task${problems.length === 1 ? "" : "s"}${taskLimit > 0 ? ` (first ${taskLimit}, A2A_BENCH_GROWTH_TASKS)` : ""}`;
  const at = (f) => `${f.completions} completions (n=${f.n})`;
  const rows = [
    {
      id: "1g",
      measure: `HumanEval ${scope} gold × n, whole runner from a samples file: peak RSS and wall per completion (\`run humaneval --predictions\`, n = ${ns.join(", ")})`,
      figures: figures
        .map(
          (f) =>
            `n=${f.n}: peak ${f.peakMb.toFixed(0)} MB (tree PSS ${f.treeMb.toFixed(0)} MB), ${(f.ms / f.completions).toFixed(2)} ms/completion`,
        )
        .join("; "),
      target: "peak RSS flat in n (largest n ≤ 1.5 × n=1)",
      met: figures.length > 1 ? last.peakMb <= 1.5 * first.peakMb : null,
      limit:
        "peak RSS: the runner process (`/usr/bin/time -v`: the largest single process, not a sum; else VmHWM polled); tree PSS: the sum over the run's processes, polled every 250 ms; rows stream to the checkpoint as they finish, the samples file is read per task",
    },
  ];
  const absent = setup.absent ? `absent (${setup.absent})` : null;
  rows.push(
    {
      id: "1h",
      measure: `HumanEval ${scope} × n=${last.n}: peak RSS of our runner vs OpenAI's harness on the same samples file (${at(last)})`,
      figures: `ours: peak ${last.peakMb.toFixed(0)} MB (tree PSS ${last.treeMb.toFixed(0)} MB)`,
      baseline: baseline
        ? `OpenAI's harness: peak ${baseline.peakMb.toFixed(0)} MB (tree PSS ${baseline.treeMb.toFixed(0)} MB)`
        : absent,
      ratio: baseline ? last.peakMb / baseline.peakMb : null,
      target: "≤ 2×",
      met: baseline ? last.peakMb <= 2 * baseline.peakMb : null,
      limit:
        "`time -v` peak of each side's largest single process (ours: node; OpenAI's: its python main process, which forks a Manager and a Process per completion from 4 threads); tree PSS polled beside it",
    },
    {
      id: "1i",
      measure: `HumanEval ${scope} × n=${last.n}: wall of our runner vs OpenAI's harness on the same samples file (${at(last)}, one run each, ours first)`,
      figures: `ours: ${(last.ms / 1000).toFixed(1)} s (${(last.ms / last.completions).toFixed(2)} ms/completion)`,
      baseline: baseline
        ? `OpenAI's harness: ${(baseline.ms / 1000).toFixed(1)} s (${(baseline.ms / baseline.completions).toFixed(2)} ms/completion)`
        : absent,
      ratio: baseline ? last.ms / baseline.ms : null,
      target: "≤ 0.3×",
      met: baseline ? last.ms <= 0.3 * baseline.ms : null,
      limit:
        "OpenAI's harness starts two processes per completion (Manager + Process); ours forks one job per completion from a warm fork server. One run each on a shared 2-core machine: a ratio, not a time to quote",
    },
  );
  return rows;
}
