/**
 * The terminal benchmark on the container engine, end to end through the runner: the shipped sample tasks
 * built from their Dockerfiles, the purple `gold` mode (solution/solve.sh through the protocol) scoring 1 on
 * every one, `echo` 0, and participants attacking the verdict (a reward file written first, a process left
 * to write it during the verifier, a system tool replaced, a fake `bash` first on PATH) scoring 0.
 * Needs A2A_BENCH_REQUIRE_CONTAINER_ENGINE=1 and DOCKER_HOST; skipped otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createDockerSandbox } from "../../../../src/sandbox/docker/docker-sandbox.js";
import { DEFAULT_LIMITS } from "../../../../src/sandbox/limits.js";
import { silentLogger } from "../../../../src/util/logger.js";
import { createPurpleApp } from "../../../../src/purple/app.js";
import { createGoldSolver } from "../../../../src/purple/solvers/gold.js";
import { createEchoSolver } from "../../../../src/purple/solvers/echo.js";
import type { Solver, SolverInput, SolverReply } from "../../../../src/purple/solver.js";
import type { ServedApp } from "../../../../src/a2a/server/serve.js";
import { runBenchmark } from "../../../../src/library/run-benchmark.js";
import type { AssessmentConfig } from "../../../../src/request-config/config.js";
import { OWNER_LABEL } from "../../../../src/sandbox/docker/owner.js";
import { serveOnLoopback } from "../../../a2a/helpers.js";
import { BASE_IMAGE, containersLabelled, testEngine } from "../../../support/container-engine.js";
import type { TerminalRow } from "../../../../src/benchmarks/terminal/row.js";

const engine = await testEngine();

const SAMPLE_TASKS = ["built-tool", "reward-json", "verifier-timeout", "write-file"];
const BASE_IMAGES = { "ubuntu:24.04": BASE_IMAGE };

/** Answers each turn with the next command, then `final`. */
class CommandSolver implements Solver {
  readonly mode = "scripted";
  private turn = 0;
  constructor(private readonly commands: string[]) {}
  solve(_input: SolverInput): Promise<SolverReply> {
    const command = this.commands[this.turn++];
    return Promise.resolve({
      text: JSON.stringify(command === undefined ? { kind: "final" } : { kind: "exec_request", command }),
    });
  }
}

let root: string;
const served: ServedApp[] = [];

describe.skipIf(engine.env === null)(
  `terminal tasks on the engine${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    const env = engine.env!;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "a2a-terminal-test-"));
    });
    afterAll(async () => {
      await Promise.all(served.map((s) => s.close()));
      await rm(root, { recursive: true, force: true });
    });

    async function run(solver: Solver, extra: Partial<AssessmentConfig> = {}) {
      const purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
      served.push(purple);
      const runId = `term-${randomBytes(4).toString("hex")}`;
      const out = join(root, runId);
      const result = await runBenchmark(
        {
          benchmark: "terminal",
          run_id: runId,
          dataset: "sample",
          sandbox: "docker",
          agent: purple.url,
          concurrency: 2,
          command_timeout_seconds: 60,
          terminal_base_images: BASE_IMAGES,
          ...extra,
        },
        { out, createSandbox: () => createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env }) },
      );
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
      return {
        rows: result.results.rows as TerminalRow[],
        aggregate: result.results.aggregate,
        out,
        status: result.results.status,
      };
    }

    it("the gold purple (solution/solve.sh through the protocol) scores 1 on every shipped task", async () => {
      const { rows, aggregate, out } = await run(createGoldSolver());
      expect(
        rows.map((r) => `${r.id}:${r.status}:${String(r.reward)}`),
        JSON.stringify(rows, null, 1),
      ).toEqual(SAMPLE_TASKS.map((t) => `${t}:passed:1`));
      for (const r of rows) expect(r.tampered).toEqual([]);
      expect(aggregate).toMatchObject({ reward_mean: 1, "pass@1": 1, attempts: { scored: 4, errors: 0 } });
      const json = rows.find((r) => r.task_id === "reward-json")!;
      expect(json).toMatchObject({ reward_file: "reward.json", reward_details: { reward: 1, tests_passed_share: 1 } });
      expect(await readFile(join(out, String(json.trajectory)), "utf8")).toContain("solve.sh");
      // A second run finds every image already built.
      const again = await run(createGoldSolver());
      expect(again.rows.every((r) => r.image_cache_hit === true && r.passed)).toBe(true);
      expect(again.aggregate).toMatchObject({ image_cache_hits: 4, image_builds: 0 });
    }, 900_000);

    it("the echo purple scores 0 on every shipped task, each a clean failure (no error)", async () => {
      const { rows, aggregate } = await run(createEchoSolver());
      expect(rows.map((r) => `${r.id}:${r.status}:${String(r.reward)}:${String(r.exit_status)}`)).toEqual(
        SAMPLE_TASKS.map((t) => `${t}:failed:0:final`),
      );
      expect(aggregate).toMatchObject({ reward_mean: 0, "pass@1": 0 });
    }, 600_000);

    it("a reward written first, and a process left to write it during the verifier, score 0", async () => {
      const { rows } = await run(
        new CommandSolver([
          "mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt && echo '{\"reward\": 1}' > /logs/verifier/reward.json",
          'nohup sh -c \'while :; do mkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt; echo "{\\"reward\\": 1}" > /logs/verifier/reward.json; sleep 0.05; done\' >/dev/null 2>&1 &',
        ]),
        { dataset: join(process.cwd(), "terminal-tasks", "write-file") },
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        status: "failed",
        reward: 0,
        verifier_reward: 0,
        reward_file: "reward.txt",
        tampered: [],
      });
    }, 600_000);

    it("a replaced system tool or a fake bash first on PATH passes the verifier but is flagged and scores 0", async () => {
      const cat = await run(
        new CommandSolver([
          "echo wrong > /app/greeting.txt && printf '#!/bin/sh\\necho \"Hello from a2a-bench!\"\\n' > /tmp/fake && cp /tmp/fake /usr/bin/cat && chmod +x /usr/bin/cat",
        ]),
        { dataset: join(process.cwd(), "terminal-tasks", "write-file") },
      );
      expect(cat.rows[0]).toMatchObject({
        status: "failed",
        reward: 0,
        verifier_reward: 1,
        failure_mode: "model_tampered_with_verifier",
      });
      expect(cat.rows[0]!.tampered).toContain("C /usr/bin/cat");
      const bash = await run(
        new CommandSolver([
          "printf '#!/bin/sh\\nmkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt\\n' > /usr/local/bin/bash && chmod +x /usr/local/bin/bash",
        ]),
        { dataset: join(process.cwd(), "terminal-tasks", "write-file") },
      );
      expect(bash.rows[0]).toMatchObject({ status: "failed", reward: 0, verifier_reward: 1 });
      expect(bash.rows[0]!.tampered!.join("\n")).toContain("/usr/local/bin/bash");
    }, 600_000);

    it("a base image missing from the engine is an infrastructure error naming it and the option, never a 0", async () => {
      const purple = await serveOnLoopback((card) => createPurpleApp({ card, solver: createGoldSolver() }));
      served.push(purple);
      const runId = `term-${randomBytes(4).toString("hex")}`;
      const out = join(root, runId);
      const config: AssessmentConfig = {
        benchmark: "terminal",
        run_id: runId,
        dataset: join(process.cwd(), "terminal-tasks", "write-file"),
        sandbox: "docker",
        agent: purple.url,
      };
      // Every item failed for our reasons: the run has no score (status error), and says why.
      await expect(
        runBenchmark(config, {
          out,
          createSandbox: () => createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env }),
        }),
      ).rejects.toThrow(/no score.*infrastructure_task_environment/);
      const results = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as { rows: TerminalRow[] };
      expect(results.rows[0]).toMatchObject({
        status: "error",
        reward: null,
        failure_mode: "infrastructure_task_environment",
        error_code: "E_TERMINAL_BASE_IMAGE",
      });
      expect(String(results.rows[0]!.error)).toMatch(/ubuntu:24\.04 is not in the engine.*terminal_base_images/);
    }, 600_000);

    it("attempts run in parallel; a verifier that writes no reward is retried, then an infrastructure error, never a 0; pass@k over attempts", async () => {
      const mixed = join(process.cwd(), "tests", "fixtures", "terminal", "mixed");
      const { rows, aggregate } = await run(createGoldSolver({ datasets: [mixed] }), {
        dataset: mixed,
        n: 2,
        k: [1, 2],
        max_infrastructure_failure_share: 1,
      });
      expect(rows.map((r) => `${r.id}:${r.status}`)).toEqual([
        "no-reward#1:error",
        "no-reward#2:error",
        "sleepy#1:passed",
        "sleepy#2:passed",
      ]);
      for (const r of rows.filter((x) => x.task_id === "no-reward"))
        expect(r).toMatchObject({
          failure_mode: "infrastructure_verifier",
          error_code: "E_TERMINAL_VERIFIER",
          retries: 1,
          reward: null,
        });
      expect(aggregate).toMatchObject({
        reward_mean: 1,
        "pass@1": 1,
        "pass@2": 1,
        attempts: { scored: 2, errors: 2 },
        tasks: { sleepy: { attempts: 2, passed: 2 }, "no-reward": { attempts: 2, errors: 2 } },
      });
    }, 600_000);
  },
);
