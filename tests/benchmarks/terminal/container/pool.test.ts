/**
 * The terminal benchmark on the docker-pool backend over two real engines (the test engine and a second
 * dockerd started for this file, tests/support/second-engine.ts): each attempt's image is built on the engine
 * the pool places it on and cached there by content (one build per engine, then hits), every row names its
 * engine, and the verdict reads the container from outside as on one engine (no `tamper_unchecked`).
 * Needs A2A_BENCH_REQUIRE_CONTAINER_ENGINE=1 and DOCKER_HOST; skipped otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createDockerPool } from "../../../../src/sandbox/docker-pool/pool-sandbox.js";
import { docker } from "../../../../src/sandbox/docker/docker-cli.js";
import { DEFAULT_LIMITS } from "../../../../src/sandbox/limits.js";
import { silentLogger } from "../../../../src/util/logger.js";
import { createPurpleApp } from "../../../../src/purple/app.js";
import { createGoldSolver } from "../../../../src/purple/solvers/gold.js";
import type { ServedApp } from "../../../../src/a2a/server/serve.js";
import { runBenchmark } from "../../../../src/library/run-benchmark.js";
import { serveOnLoopback } from "../../../a2a/helpers.js";
import { BASE_IMAGE, testEngine } from "../../../support/container-engine.js";
import { startSecondEngine, type SecondEngine } from "../../../support/second-engine.js";
import type { TerminalRow } from "../../../../src/benchmarks/terminal/row.js";

const engine = await testEngine();
const ATTEMPTS = 4;

/** A task whose build context holds a fresh nonce: an image neither engine has built before. */
async function writeTask(dir: string): Promise<void> {
  for (const d of ["environment", "tests", "solution"]) await mkdir(join(dir, d), { recursive: true });
  await writeFile(
    join(dir, "task.toml"),
    "[agent]\ntimeout_sec = 120.0\n\n[verifier]\ntimeout_sec = 60.0\n\n[environment]\nmemory_mb = 256\nstorage_mb = 512\nallow_internet = false\n",
  );
  await writeFile(join(dir, "instruction.md"), "Create the file /app/done.\n");
  await writeFile(join(dir, "environment", "Dockerfile"), `FROM ${BASE_IMAGE}\nWORKDIR /app\nCOPY nonce /etc/nonce\n`);
  await writeFile(join(dir, "environment", "nonce"), `${randomBytes(16).toString("hex")}\n`);
  await writeFile(
    join(dir, "tests", "test.sh"),
    "#!/bin/bash\nif [ -f /app/done ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n",
  );
  await writeFile(join(dir, "solution", "solve.sh"), "#!/bin/bash\ntouch /app/done\n");
  await chmod(join(dir, "tests", "test.sh"), 0o755);
}

let root: string;
let second: SecondEngine | undefined;
const served: ServedApp[] = [];

describe.skipIf(engine.env === null)(
  `terminal tasks on a docker pool of two engines${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    const env = engine.env!;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "a2a-terminal-pool-"));
      second = await startSecondEngine(env);
    }, 900_000);
    afterAll(async () => {
      await Promise.all(served.map((s) => s.close()));
      await second?.stop();
      await rm(root, { recursive: true, force: true });
    }, 900_000);

    it("each engine builds the task's image once and finds it after; every row names its engine and is judged from outside", async () => {
      const first = env["DOCKER_HOST"]!;
      const hosts = [first, second!.url];
      const taskDir = join(root, "tasks");
      await writeTask(join(taskDir, "pooled"));
      const purple = await serveOnLoopback((card) =>
        createPurpleApp({ card, solver: createGoldSolver({ datasets: [taskDir] }) }),
      );
      served.push(purple);
      const runId = `term-pool-${randomBytes(4).toString("hex")}`;
      const result = await runBenchmark(
        {
          benchmark: "terminal",
          run_id: runId,
          dataset: taskDir,
          sandbox: "docker-pool",
          agent: purple.url,
          n: ATTEMPTS,
          concurrency: 2,
          command_timeout_seconds: 60,
        },
        {
          out: join(root, runId),
          createSandbox: () =>
            createDockerPool({
              // One environment at a time per engine: the two first attempts go one to each engine.
              hosts: hosts.map((url) => ({ url, capacity: 1 })),
              limits: DEFAULT_LIMITS,
              logger: silentLogger(),
              image: BASE_IMAGE,
              owner: runId,
              env,
            }),
        },
      );
      const rows = result.results.rows as TerminalRow[];
      try {
        expect(
          rows.map((r) => `${r.status}:${String(r.reward)}`),
          JSON.stringify(rows, null, 1),
        ).toEqual(Array.from({ length: ATTEMPTS }, () => "passed:1"));
        for (const r of rows) {
          expect(hosts).toContain(r.engine);
          expect(r.tampered).toEqual([]);
          expect(r.tamper_unchecked).toBeUndefined();
          expect(r.network).toBe("none");
        }
        expect(new Set(rows.map((r) => r.engine))).toEqual(new Set(hosts));
        // One build per engine (its first attempt), every later attempt there a hit; one image tag everywhere.
        expect(new Set(rows.map((r) => r.image)).size).toBe(1);
        for (const h of hosts) {
          const on = rows.filter((r) => r.engine === h);
          expect(
            on.filter((r) => r.image_cache_hit === false),
            h,
          ).toHaveLength(1);
        }
        expect(result.results.aggregate).toMatchObject({ reward_mean: 1, image_builds: 2, image_cache_hits: 2 });
        // Each engine holds its own copy.
        for (const h of hosts) {
          const r = await docker(["image", "inspect", "--format", "{{.Id}}", rows[0]!.image!], {
            env: { ...env, DOCKER_HOST: h },
          });
          expect(r.exitCode, h).toBe(0);
        }
      } finally {
        if (rows[0]?.image) await docker(["rmi", "-f", rows[0].image], { env });
      }
    }, 900_000);
  },
);
