/**
 * Rows 14-14b: the terminal benchmark (src/benchmarks/terminal) on the engine at DOCKER_HOST.
 *
 * 14:  a task's environment image: built from its Dockerfile (content never seen before: a fresh nonce file
 *      in the build context) vs found in the engine by its content hash (the same content again).
 * 14b: episodes per minute at 1, 2 and 4 attempts in parallel, on a sleep-bound task (the gold participant's
 *      solve.sh sleeps SLEEP_S seconds; the verifier checks the file it then writes), through the runner with
 *      the purple gold mode over loopback A2A: 8 attempts per run (`n: 8`), whole run wall; the 2 and 4 runs
 *      as ratios to the 1-parallel run of the same bench run (the ratio column: 4 against 1).
 * Both need a container engine holding the project's Debian base image; without one they say why.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { DIST } from "../lib/paths.mjs";
import { summary } from "../lib/stats.mjs";

const imp = (p) => import(join(DIST, p));
const { engineEnv, probeEngine } = await imp("sandbox/docker/engine.js");
const { docker } = await imp("sandbox/docker/docker-cli.js");
const { readTask } = await imp("benchmarks/terminal/task.js");
const { environmentImage } = await imp("benchmarks/terminal/image.js");
const { runBenchmark } = await imp("library/run-benchmark.js");
const { createSandbox } = await imp("sandbox/index.js");
const { cardFromToml } = await imp("a2a/shared/card.js");
const { serveApp } = await imp("a2a/server/serve.js");
const { createPurpleApp } = await imp("purple/app.js");
const { createGoldSolver } = await imp("purple/solvers/gold.js");
const { silentLogger } = await imp("util/logger.js");

const BASE_IMAGE = "a2a-bench/debian-base:bookworm";
/** Seconds the sleep-bound task's solution sleeps. */
const SLEEP_S = 3;
const ATTEMPTS = 8;

/** Write a task directory; `nonce` goes into the build context (a new nonce: an image never built). */
function writeTask(dir, nonce) {
  for (const d of ["environment", "tests", "solution"]) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(
    join(dir, "task.toml"),
    "[agent]\ntimeout_sec = 300.0\n\n[verifier]\ntimeout_sec = 60.0\n\n[environment]\nmemory_mb = 256\nstorage_mb = 512\nallow_internet = false\n",
  );
  writeFileSync(join(dir, "instruction.md"), `Wait ${SLEEP_S} seconds, then create /app/done.\n`);
  writeFileSync(
    join(dir, "environment", "Dockerfile"),
    `FROM ${BASE_IMAGE}\nWORKDIR /app\nCOPY nonce /etc/bench-nonce\n`,
  );
  writeFileSync(join(dir, "environment", "nonce"), `${nonce}\n`);
  writeFileSync(
    join(dir, "tests", "test.sh"),
    "#!/bin/bash\nif [ -f /app/done ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n",
  );
  writeFileSync(join(dir, "solution", "solve.sh"), `#!/bin/bash\nsleep ${SLEEP_S}\ntouch /app/done\n`);
  chmodSync(join(dir, "tests", "test.sh"), 0o755);
}

export async function runTerminal(ctx) {
  const env = engineEnv();
  const probe = await probeEngine(env);
  if (!probe.ok) throw new Error(probe.reason);
  const runs = ctx.quick ? 3 : 5;
  const tmp = mkdtempSync(join(tmpdir(), "a2a-bench-terminal-"));
  const built = [];
  try {
    ctx.log("terminal: image builds vs cache hits, interleaved");
    const cold = [];
    const warm = [];
    for (let i = 0; i < 1 + runs; i++) {
      const dir = join(tmp, `build-${i}`, "sleepy");
      writeTask(dir, randomBytes(16).toString("hex"));
      const task = await readTask(dir);
      const o = { baseImages: {}, network: false, env };
      let t0 = performance.now();
      const first = await environmentImage(task, o);
      const c = performance.now() - t0;
      t0 = performance.now();
      const second = await environmentImage(task, o);
      const w = performance.now() - t0;
      built.push(first.image);
      if (first.cacheHit || !second.cacheHit || first.image !== second.image)
        throw new Error(`unexpected cache state: ${JSON.stringify({ first, second })}`);
      if (i > 0) {
        cold.push(c);
        warm.push(w);
      }
    }
    const c = summary(cold);
    const w = summary(warm);
    const rows = [
      {
        id: "14",
        measure: "terminal task image: built from its Dockerfile (new content) vs found by its content hash",
        figures: `cache hit median ${w.median.toFixed(0)} ms (min ${w.min.toFixed(0)}, max ${w.max.toFixed(0)})`,
        baseline: `build median ${c.median.toFixed(0)} ms (min ${c.min.toFixed(0)}, max ${c.max.toFixed(0)})`,
        ratio: w.median / c.median,
        target: "a hit costs a small share of a build",
        met: w.median < c.median / 2,
        limit:
          "a hit is the content hash of the build context plus `docker image inspect` of the base image and the tag.",
      },
    ];

    ctx.log("terminal: episodes per minute at 1, 2, 4 in parallel");
    const taskDir = join(tmp, "episodes");
    writeTask(join(taskDir, "sleepy"), "episodes");
    const served = await serveApp("127.0.0.1", 0, (port) =>
      createPurpleApp({
        card: cardFromToml({ name: "bench-gold", url: `http://127.0.0.1:${port}/`, version: "0.0.1", skills: [] }),
        solver: createGoldSolver({ datasets: [taskDir] }),
      }),
    );
    const perMinute = {};
    try {
      let k = 0;
      // One warm-up run builds the image; every timed run finds it.
      for (const concurrency of [0, 1, 2, 4]) {
        const runId = `bench-term-${k++}`;
        const t0 = performance.now();
        const run = await runBenchmark(
          {
            benchmark: "terminal",
            run_id: runId,
            dataset: taskDir,
            sandbox: "docker",
            agent: `http://127.0.0.1:${served.port}/`,
            n: concurrency === 0 ? 1 : ATTEMPTS,
            concurrency: Math.max(1, concurrency),
          },
          {
            out: join(tmp, runId),
            createSandbox: () =>
              createSandbox({ backend: "docker", logger: silentLogger(), concurrency: Math.max(1, concurrency) }),
          },
        );
        const wall = performance.now() - t0;
        if (run.results.aggregate.reward_mean !== 1)
          throw new Error(`run ${runId}: reward_mean ${run.results.aggregate.reward_mean}`);
        if (concurrency > 0) perMinute[concurrency] = (ATTEMPTS / wall) * 60_000;
      }
    } finally {
      await served.close();
      // The episodes' image too (found by its content: no build).
      const episodesTask = await readTask(join(taskDir, "sleepy"));
      built.push((await environmentImage(episodesTask, { baseImages: {}, network: false, env })).image);
    }
    const f = (c) => perMinute[c].toFixed(1);
    rows.push({
      id: "14b",
      measure: `terminal episodes per minute on a ${SLEEP_S} s sleep-bound task (gold purple, ${ATTEMPTS} attempts per run)`,
      figures: `1: ${f(1)}/min, 2: ${f(2)}/min (${(perMinute[2] / perMinute[1]).toFixed(2)}× the 1-parallel run), 4: ${f(4)}/min (${(perMinute[4] / perMinute[1]).toFixed(2)}×)`,
      baseline: `the sleep alone: ${(60 / SLEEP_S).toFixed(1)}/min per lane`,
      ratio: perMinute[4] / perMinute[1],
      target: "4 in parallel well above 1",
      met: perMinute[4] > 2 * perMinute[1],
      limit:
        "per attempt: a container start, the episode's A2A turns, ending its processes, docker diff, the tests copied in, the verifier, docker cp of the reward, the container's removal; one run per width (no repeats).",
    });
    return rows;
  } finally {
    for (const image of new Set(built)) await docker(["rmi", "-f", image], { env });
    rmSync(tmp, { recursive: true, force: true });
  }
}
