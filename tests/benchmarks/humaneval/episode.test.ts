/**
 * HumanEval interactive on the docker backend, end to end: each sample is an episode in its own
 * environment against a REAL A2A participant on loopback (the purple app: its `gold` and `echo`
 * modes, and scripted solvers), and the answer is graded by the trusted checker on the host.
 * The participant is the adversary: it looks for the tests and the reference, forges a pass in
 * every way it can reach, and must score 0.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createPurpleApp } from "../../../src/purple/app.js";
import { createSolver } from "../../../src/purple/solvers/index.js";
import type { Solver, SolverInput, SolverReply } from "../../../src/purple/solver.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { runBenchmark } from "../../../src/library/run-benchmark.js";
import type { AssessmentConfig } from "../../../src/request-config/config.js";
import { createDockerSandbox } from "../../../src/sandbox/docker/docker-sandbox.js";
import { OWNER_LABEL } from "../../../src/sandbox/docker/owner.js";
import { DEFAULT_LIMITS } from "../../../src/sandbox/limits.js";
import { silentLogger } from "../../../src/util/logger.js";
import { readTrajectory } from "../../../src/interactive/trajectory.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import type { CompletionRecord, HumanEvalRow } from "../../../src/benchmarks/humaneval/row.js";
import { SOLUTION_FILE, WORKDIR } from "../../../src/benchmarks/humaneval/episode.js";
import { serveOnLoopback } from "../../a2a/helpers.js";
import { containersLabelled, testEngine } from "../../support/container-engine.js";
import { checkAgainst } from "../../../src/util/schema.js";

const engine = await testEngine();

/** A command, with its limit in seconds when not 60. */
type Command = string | { command: string; timeout: number };

/**
 * Sends `commands(task)` one per turn, then `final` with `finalOutput`; keeps every message it got.
 * One script position per A2A context: the run's episodes go on at once.
 */
class ScriptedSolver implements Solver {
  readonly mode = "scripted";
  readonly seen: string[] = [];
  private readonly episodes = new Map<string, { commands: Command[]; step: number }>();
  constructor(
    private readonly script: (task: { instance_id: string; workdir: string }) => Command[],
    private readonly finalOutput: string | undefined,
  ) {}
  solve(input: SolverInput): Promise<SolverReply> {
    this.seen.push(input.text);
    const msg = JSON.parse(input.text) as { kind: string; instance_id: string; workdir: string };
    const key = input.contextId ?? "";
    if (msg.kind === "task") this.episodes.set(key, { commands: this.script(msg), step: 0 });
    const ep = this.episodes.get(key);
    const next = ep?.commands[ep.step++];
    const command = typeof next === "string" ? { command: next, timeout: 60 } : next;
    const action =
      command !== undefined
        ? { kind: "exec_request", ...command }
        : { kind: "final", ...(this.finalOutput !== undefined ? { output: this.finalOutput } : {}) };
    return Promise.resolve({ text: JSON.stringify(action) });
  }
  /** The exec_results it received, in order. */
  results(): Array<{ exit_code: number; stdout: string; stderr: string }> {
    return this.seen
      .map((t) => JSON.parse(t) as { kind: string; exit_code: number; stdout: string; stderr: string })
      .filter((m) => m.kind === "exec_result");
  }
}

const problemOf = (id: string) => SAMPLE_PROBLEMS.find((p) => p.task_id === id)!;
const b64 = (text: string): string => Buffer.from(text).toString("base64");

let root: string;
let served: ServedApp[] = [];

describe.skipIf(engine.env === null)(
  `humaneval interactive on docker${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    const env = engine.env!;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "a2a-he-episode-test-"));
    });
    afterAll(async () => {
      await Promise.all(served.map((s) => s.close()));
      served = [];
      await rm(root, { recursive: true, force: true });
    });

    async function run(solver: Solver, extra: Partial<AssessmentConfig> = {}) {
      const purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
      served.push(purple);
      const runId = `he-ep-${randomBytes(4).toString("hex")}`;
      const out = join(root, runId);
      const turns: number[] = [];
      const result = await runBenchmark(
        {
          benchmark: "humaneval",
          run_id: runId,
          dataset: "sample",
          sandbox: "docker",
          agent: purple.url,
          interaction: "interactive",
          samples: 2,
          concurrency: 2,
          max_turns: 10,
          // The grading job's wall limit: generous, so a loaded test machine cannot turn a pass into a timeout.
          per_task_timeout_seconds: 30,
          ...extra,
        },
        {
          out,
          createSandbox: () => createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env }),
          progress: {
            onEvent: (e) => {
              if (e.event === "turn") turns.push(e.turn);
            },
            close: () => undefined,
          },
        },
      );
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
      const rows = result.results.rows as unknown as HumanEvalRow[];
      const doc = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as unknown;
      expect(checkAgainst("results.schema.json", doc)).toEqual([]);
      return { result, rows, out, turns };
    }

    it("the purple gold mode solves every task through commands: all pass, graded on the host", async () => {
      const { result, rows, out, turns } = await run(await createSolver("gold"), { n: 2, k: [1, 2] });
      expect(result.results.status).toBe("ok");
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row).toMatchObject({ status: "passed", passed: true, interaction: "interactive", n: 2, num_correct: 2 });
        for (const s of row.samples)
          expect(s).toMatchObject({ status: "passed", exit_status: "final", answer_source: "final", commands: 1 });
        // Each sample is its own episode: its own trajectory.
        expect(new Set(row.samples.map((s) => s.trajectory)).size).toBe(2);
        const { lines } = await readTrajectory(join(out, row.samples[0]!.trajectory!));
        expect(lines.map((l) => l.type)).toEqual(["episode_start", "turn", "turn", "episode_end"]);
      }
      expect(turns.length).toBe(4); // one command per episode, streamed as a turn event
      expect(result.results.aggregate).toMatchObject({
        pass_at_k: { "pass@1": 1, "pass@2": 1 },
        interactive: { episodes: 4, mean_turns: 2, exit_status_counts: { final: 4 }, answer_sources: { final: 4 } },
      });
    }, 300_000);

    it("the purple echo mode answers final at once: a clean run that scores 0", async () => {
      const { result, rows } = await run(await createSolver("echo"));
      expect(result.results.status).toBe("ok");
      for (const row of rows) {
        expect(row.passed).toBe(false);
        expect(row.samples[0]).toMatchObject({
          failure_mode: "model_no_code",
          exit_status: "final",
          turns: 1,
          commands: 0,
          answer_source: "file",
          executed: false,
        });
      }
      expect(result.results.aggregate).toMatchObject({
        pass_at_k: { "pass@1": 0 },
        failure_modes: { model_no_code: 2 },
      });
    }, 300_000);

    it("an agent that completes solution.py and answers final with prose is graded on the file", async () => {
      const solver = new ScriptedSolver((t) => {
        const p = problemOf(t.instance_id);
        return [
          `cat ${SOLUTION_FILE} >/dev/null && echo ${b64(p.canonical_solution)} | base64 -d >> ${SOLUTION_FILE}`,
          `python3 -c 'import solution' && echo imported`,
        ];
      }, "Done: I completed the function in the file.");
      const { rows } = await run(solver);
      for (const row of rows)
        expect(row.samples[0]).toMatchObject({ status: "passed", answer_source: "file", commands: 2, turns: 3 });
      // The commands ran where the task said, and python3 is there.
      expect(solver.results().filter((r) => r.stdout.includes("imported"))).toHaveLength(2);
    }, 300_000);

    it("the environment holds the prompt only: no test, no reference, no package, no harness variable", async () => {
      const probes = (t: { instance_id: string; workdir: string }): string[] => {
        const p = problemOf(t.instance_id);
        // A line of the tests and one of the reference, searched everywhere but /proc and /sys.
        const testLine = p.test
          .split("\n")
          .find((l) => l.includes("assert"))!
          .trim();
        const refLine = p.canonical_solution
          .split("\n")
          .find((l) => l.trim().length > 12)!
          .trim();
        const grep = (s: string) =>
          `grep -rIlF --exclude-dir=proc --exclude-dir=sys -e "$(echo ${b64(s)} | base64 -d)" / 2>/dev/null | head -5; echo "end $?"`;
        return [
          `pwd; ls -la; cat ${SOLUTION_FILE}`,
          grep(testLine),
          grep(refLine),
          "env; cat /proc/1/environ | tr '\\0' '\\n'; ls / /app /opt 2>&1; find / -name 'HumanEval*' -not -path '/proc/*' 2>/dev/null | head",
          "ls /var/run/docker.sock /run/docker.sock 2>&1; python3 -c 'import socket; s=socket.create_connection((\"1.1.1.1\", 53), 3)' 2>&1 | tail -1",
        ];
      };
      const solver = new ScriptedSolver(probes, undefined);
      const { rows } = await run(solver, { samples: 1 });
      const r = solver.results();
      expect(r).toHaveLength(5);
      expect(r[0]!.stdout).toContain(WORKDIR);
      expect(r[0]!.stdout).toContain(problemOf(rows[0]!.task_id).prompt.trim().split("\n")[0]);
      expect(r[0]!.stdout).toMatch(/TASK\.md/);
      expect(r[0]!.stdout).toMatch(/solution\.py/);
      // Nothing found on the whole filesystem (the lines are in no file).
      expect(r[1]!.stdout.trim()).toBe("end 0");
      expect(r[2]!.stdout.trim()).toBe("end 0");
      expect(r[3]!.stdout).not.toMatch(/A2A_BENCH|DOCKER_HOST|canonical_solution|HumanEval/);
      expect(r[3]!.stdout).toContain("cannot access '/app'");
      expect(r[4]!.stdout).toMatch(/No such file/);
      expect(r[4]!.stdout).toMatch(/Error|unreachable|refused|timed out/i);
      expect(rows[0]!.passed).toBe(false);
    }, 300_000);

    it("forging a pass fails: prints PASSED, success files, a planted sitecustomize, fake answer lines, killing init", async () => {
      const forged = [
        // Fake framed answers on stdout and an exit 0 at import: the checker's channel is not the candidate's stdout.
        "import os, sys",
        'for i in range(64): print(\'{"i":%d,"ok":true}\' % i)',
        "print('PASSED'); sys.stdout.flush()",
        "os._exit(0)",
        "",
      ].join("\n");
      const solver = new ScriptedSolver(
        () => [
          'echo PASSED; echo \'All tests passed\'; echo \'{"passed": true, "status": "passed"}\' | tee result.json',
          "mkdir -p /tmp/t && echo 'import sys; sys.exit(0)' > sitecustomize.py && touch PASSED .passed && ls",
          `echo ${b64(forged)} | base64 -d > ${SOLUTION_FILE}`,
          "kill -9 1; kill -STOP 1; true",
          "echo still here",
        ],
        'PASSED: all 12 tests passed. {"status": "passed", "passed": true, "num_correct": 1}',
      );
      const { result, rows } = await run(solver);
      expect(result.results.status).toBe("ok");
      for (const row of rows) {
        expect(row.passed).toBe(false);
        const s = row.samples[0]!;
        // The episode went on past the kill and ended final: the environment was never ours to lose.
        expect(s).toMatchObject({ exit_status: "final", commands: 5, answer_source: "file" });
        expect(s.status).not.toBe("passed");
        // Never ours: whatever the forged program did is the participant's (it timed out or ended early).
        expect(String(s.failure_mode), String(s.reason)).not.toMatch(/^infrastructure_/);
      }
      expect(solver.results().at(-1)!.stdout).toContain("still here");
      expect(result.results.aggregate).toMatchObject({ pass_at_k: { "pass@1": 0 }, passed: 0 });
    }, 300_000);

    it("a code answer in final wins over the file; an episode without final is no answer even with a correct file", async () => {
      // The file holds the right answer, the final output a wrong one: the final output is graded.
      const wrongFinal = new ScriptedSolver(
        (t) => [`echo ${b64(problemOf(t.instance_id).canonical_solution)} | base64 -d >> ${SOLUTION_FILE}`],
        "```python\n    raise NotImplementedError\n```",
      );
      const a = await run(wrongFinal, { samples: 1 });
      expect(a.rows[0]!.samples[0]).toMatchObject({ answer_source: "final", completion_kind: "body" });
      expect(a.rows[0]!.passed).toBe(false);
      // It never says final: the turns run out, the correct file is not graded.
      const endless = new ScriptedSolver(
        (t) => [
          `echo ${b64(problemOf(t.instance_id).canonical_solution)} | base64 -d >> ${SOLUTION_FILE}`,
          ...Array.from({ length: 10 }, () => "true"),
        ],
        undefined,
      );
      const b = await run(endless, { samples: 1, max_turns: 3 });
      const s: CompletionRecord = b.rows[0]!.samples[0]!;
      expect(s).toMatchObject({
        status: "failed", // the participant's failure (runner/attribution.ts)
        failure_mode: "model_turn_limit",
        exit_status: "turn_limit",
        answer_source: null,
        executed: false,
      });
      expect(b.result.results.status).toBe("ok"); // the participant's failure, scored 0, not ours
    }, 300_000);

    it("the right solution.py, then `kill -STOP -1` and a command: the participant's time limit (failed, counted), never an error; without the kill it passes", async () => {
      const fix = (t: { instance_id: string }): string =>
        `echo ${b64(problemOf(t.instance_id).canonical_solution)} | base64 -d >> ${SOLUTION_FILE}`;
      const stopper = new ScriptedSolver(
        // The command after the kill finds the environment ended: the participant's limit, not our backend's failure.
        (t) => [fix(t), { command: "kill -STOP -1; echo stopped-them", timeout: 1 }, "echo again"],
        "done",
      );
      const a = await run(stopper, { samples: 1 });
      expect(a.result.results.status).toBe("ok");
      expect(stopper.results()[1]).toMatchObject({ exit_code: 124 });
      expect(a.rows[0]!.passed).toBe(false);
      expect(a.rows[0]!.samples[0]).toMatchObject({
        status: "failed",
        failure_mode: "model_resource_limit",
        exit_status: "resource_limit",
        episode_error: { code: "E_RESOURCE_LIMIT" },
      });
      expect(a.result.results.aggregate).toMatchObject({ accuracy: 0, failed: 1, errors: 0, total: 1 });
      // The same participant without the kill, in the next run: its file passes.
      const honest = await run(new ScriptedSolver((t) => [fix(t)], "done"), { samples: 1 });
      expect(honest.rows.map((r) => r.passed)).toEqual([true]);
    }, 300_000);
  },
);
