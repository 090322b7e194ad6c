/**
 * HumanEval interactive on the local backend (bwrap environments): the same episode flow as on docker, with the
 * environment's working tree empty but for the prompt and the task text, graded by the trusted checker on the host.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { createPurpleApp } from "../../../src/purple/app.js";
import { createSolver } from "../../../src/purple/solvers/index.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { runBenchmark } from "../../../src/library/run-benchmark.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { silentLogger } from "../../../src/util/logger.js";
import type { HumanEvalRow } from "../../../src/benchmarks/humaneval/row.js";
import { serveOnLoopback } from "../../a2a/helpers.js";
import { checkAgainst } from "../../../src/util/schema.js";
import { startFakeParticipant, type FakeParticipant } from "../../a2a/fake-participant.js";
import { deepArray } from "../../a2a/bombs.js";
import type { Solver, SolverInput, SolverReply } from "../../../src/purple/solver.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import { humanEvalGoldText } from "../../../src/benchmarks/humaneval/gold.js";
import { isHarnessFailure } from "../../../src/runner/attribution.js";

/** What a scripted participant does in one episode: its commands in order, then `final` with this output. */
interface Script {
  commands: string[];
  final: string;
  /**
   * Each of `commands`' own limit, seconds: short only where a command holding past its limit is what a
   * test is about; default generous, as the marking command's always is (a busy machine must not end it).
   */
  timeout?: number;
}

/** The limit of a command that is not meant to reach it, seconds. */
const ROOMY_TIMEOUT = 120;

/**
 * A participant whose first episode follows `first(taskId)` and every later one `rest(taskId)` (with
 * concurrency 1, the run's first item, then its neighbours). Each episode's first command writes a mark
 * file into the environment's working tree; when its result comes back the environment's directory on
 * this host is found by that mark (so the test can see it gone after the run, and knows it was there).
 */
class ScriptedParticipant implements Solver {
  readonly mode = "scripted";
  /** Host directories of the environments it worked in, found while they were open. */
  readonly roots: string[] = [];
  /** The command results it was sent, per episode (in order of the episodes' starts). */
  readonly results: Record<string, unknown>[][] = [];
  private readonly episodes = new Map<
    string,
    { script: Script; mark: string; sent: number; results: Record<string, unknown>[] }
  >();
  constructor(
    private readonly first: (taskId: string) => Script,
    private readonly rest: (taskId: string) => Script,
  ) {}

  solve(input: SolverInput): Promise<SolverReply> {
    const key = input.contextId ?? "";
    let ep = this.episodes.get(key);
    if (ep === undefined) {
      const task = JSON.parse(input.text) as { instance_id: string };
      const script = (this.episodes.size === 0 ? this.first : this.rest)(task.instance_id);
      ep = { script, mark: `a2a-mark-${randomBytes(6).toString("hex")}`, sent: 0, results: [] };
      this.episodes.set(key, ep);
      this.results.push(ep.results);
    } else {
      ep.results.push(JSON.parse(input.text) as Record<string, unknown>);
      if (ep.sent === 1) this.roots.push(...hostDirsOf(ep.mark));
    }
    const commands = [`touch ${ep.mark}`, ...ep.script.commands];
    const n = ep.sent++;
    const command = commands[n];
    const timeout = n === 0 ? ROOMY_TIMEOUT : (ep.script.timeout ?? ROOMY_TIMEOUT);
    return Promise.resolve({
      text: JSON.stringify(
        command === undefined ? { kind: "final", output: ep.script.final } : { kind: "exec_request", command, timeout },
      ),
    });
  }
}

/** The environment directories on this host (under TMPDIR: `<dir>/tree/<mark>`) holding a mark file. */
function hostDirsOf(mark: string): string[] {
  // Other processes create and remove directories under TMPDIR while find walks it: a vanished one is no error.
  return spawnSync("find", [tmpdir(), "-ignore_readdir_race", "-maxdepth", "3", "-name", mark], { encoding: "utf8" })
    .stdout.split("\n")
    .filter(Boolean)
    .map((p) => resolve(p, "..", ".."));
}

/** The reference answer of a sample problem, as a final output. */
function rightAnswer(taskId: string): string {
  return humanEvalGoldText(SAMPLE_PROBLEMS.find((p) => p.task_id === taskId)!);
}
/** A wrong answer: the entry point defined, returning nothing. */
function wrongAnswer(taskId: string): string {
  const entry = SAMPLE_PROBLEMS.find((p) => p.task_id === taskId)!.entry_point;
  return "```python\ndef " + entry + "(*args, **kwargs):\n    return None\n```\n";
}
const honest = (taskId: string): Script => ({ commands: [], final: rightAnswer(taskId) });

/** 250-character directory names nested 30 deep (beyond PATH_MAX), a FIFO at the bottom, mode-000 directories. */
const LEAVE_TREE = [
  'leave() { d=$(printf \'x%.0s\' $(seq 250)); mkdir -p "$1" && cd "$1" || return 1',
  'for i in $(seq 30); do mkdir "$d" && cd "$d" || return 1; done',
  "mkfifo fifo && mkdir locked && touch locked/f && chmod 000 locked",
  'cd "$1" && mkdir shut && touch shut/f && chmod 000 shut; }',
  'leave "$PWD/left" && leave /tmp/left && echo left',
].join("; ");
/** The length of each FIFO's path the tree-leaving command left (its working tree's, its /tmp's). */
const DEEPEST = 'for t in "$PWD/left" /tmp/left; do find "$t" -name fifo | head -1 | tr -d "\\n" | wc -c; done';

const probe = await createSandbox({ backend: "local", logger: silentLogger() });
const skip = probe.capabilities.has("environments") ? null : `no environments here (isolation ${probe.isolation})`;
await probe.close();

describe.skipIf(skip !== null)(`humaneval interactive on local${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let root: string;
  const served: ServedApp[] = [];
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "a2a-he-local-episode-"));
  });
  afterAll(async () => {
    await Promise.all(served.map((s) => s.close()));
    await rm(root, { recursive: true, force: true });
  });

  async function run(mode: string | FakeParticipant | Solver, extra: { concurrency?: number } = {}) {
    let url: string;
    if (typeof mode === "string" || !("url" in mode)) {
      const solver = typeof mode === "string" ? await createSolver(mode) : mode;
      const purple = await serveOnLoopback((card) => Promise.resolve(createPurpleApp({ card, solver })));
      served.push(purple);
      url = purple.url;
    } else url = mode.url;
    const runId = `he-local-${randomBytes(4).toString("hex")}`;
    const out = join(root, runId);
    const result = await runBenchmark(
      {
        benchmark: "humaneval",
        run_id: runId,
        dataset: "sample",
        sandbox: "local",
        agent: url,
        interaction: "interactive",
        samples: 2,
        concurrency: 2,
        max_turns: 10,
        per_task_timeout_seconds: 120,
        ...extra,
      },
      { out },
    );
    const doc = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as unknown;
    expect(checkAgainst("results.schema.json", doc)).toEqual([]);
    return { result, rows: result.results.rows as unknown as HumanEvalRow[] };
  }

  it("gold solves through commands in a bwrap environment: every sample passes", async () => {
    const { result, rows } = await run("gold");
    expect(result.results.status).toBe("ok");
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "passed", interaction: "interactive" });
      for (const s of row.samples) expect(s).toMatchObject({ exit_status: "final", answer_source: "final" });
    }
  }, 180_000);

  it("a reply nested 300,000 deep is the participant's failure (not our sandbox's); the card is fetched once per run", async () => {
    const hostile = await startFakeParticipant({
      answer: () => ({
        kind: "raw",
        body: (id) =>
          `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"kind":"message","messageId":"m","role":"agent",` +
          `"parts":[{"kind":"data","data":{"kind":"final","output":${deepArray(300_000)}}}]}}`,
      }),
    });
    served.push({ close: () => hostile.close() } as ServedApp);
    const { result, rows } = await run(hostile);
    expect(result.results.status).toBe("ok");
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.passed).toBe(false);
      for (const s of row.samples) {
        expect(s).toMatchObject({
          exit_status: "participant_error",
          failure_mode: "model_participant_error",
          episode_error: { code: "E_PARTICIPANT_REPLY_TOO_DEEP" },
        });
      }
    }
    // Two episodes, one card: the run's participant check fetched it, the episodes used its client.
    expect(hostile.hits.filter((h) => h.method === "GET")).toHaveLength(1);
    expect(hostile.hits.filter((h) => h.method === "POST")).toHaveLength(2);
  }, 180_000);

  it("echo answers final at once: a clean run that scores 0", async () => {
    const { result, rows } = await run("echo");
    expect(result.results.status).toBe("ok");
    for (const row of rows) expect(row.passed).toBe(false);
  }, 180_000);

  describe("a participant that sabotages its environment scores no better for it, and no one after it is affected", () => {
    /** The run's rows in the order of its items, with the first sample of each. */
    function firstSamples(rows: HumanEvalRow[]) {
      return rows.map((r) => ({ row: r, sample: r.samples[0]! }));
    }

    /** Every environment it worked in was found while open, and is gone from this host now. */
    async function environmentsGone(p: ScriptedParticipant, episodes: number): Promise<void> {
      expect(p.roots).toHaveLength(episodes);
      for (const root of p.roots) {
        expect(root.startsWith(join(tmpdir(), "a2a-env-"))).toBe(true);
        await expect(stat(root)).rejects.toMatchObject({ code: "ENOENT" });
      }
    }

    /** The gold purple's run afterwards: every sample passes. */
    async function honestRunPasses(): Promise<void> {
      const { result, rows } = await run("gold");
      expect(result.results.status).toBe("ok");
      expect(rows.map((r) => r.passed)).toEqual([true, true]);
    }

    it("`kill -STOP -1`, then the right answer: the participant's time limit (failed, counted), never an error; the next item and the next run pass", async () => {
      const stopper = new ScriptedParticipant(
        (id) => ({ commands: ["kill -STOP -1; echo stopped-them"], final: rightAnswer(id), timeout: 1 }),
        honest,
      );
      const { result, rows } = await run(stopper, { concurrency: 1 });
      expect(result.results.status).toBe("ok");
      const [sabotaged, neighbour] = firstSamples(rows);
      // The stopped command came back to it as a command that did not end in time, not as our failure.
      expect(stopper.results[0]![1]).toMatchObject({ exit_code: 124, timed_out: true });
      expect(sabotaged!.row.passed).toBe(false);
      expect(sabotaged!.row.status).toBe("failed");
      expect(sabotaged!.sample).toMatchObject({
        status: "failed",
        failure_mode: "model_resource_limit",
        exit_status: "resource_limit",
      });
      expect(isHarnessFailure(sabotaged!.sample.failure_mode)).toBe(false);
      expect(neighbour!.row.passed).toBe(true);
      expect(result.results.aggregate).toMatchObject({ accuracy: 0.5, passed: 1, failed: 1, errors: 0, total: 2 });
      await environmentsGone(stopper, 2);
      await honestRunPasses();
    }, 300_000);

    it("`kill -KILL -1` kills its own command only: no error, the environment lives on; the next item and the next run pass", async () => {
      const killer = new ScriptedParticipant(
        (id) => ({ commands: ["kill -KILL -1; echo killed-them", "echo alive"], final: wrongAnswer(id) }),
        honest,
      );
      const { result, rows } = await run(killer, { concurrency: 1 });
      expect(result.results.status).toBe("ok");
      const [sabotaged, neighbour] = firstSamples(rows);
      expect(killer.results[0]![2]).toMatchObject({ exit_code: 0, stdout: "alive\n" });
      expect(sabotaged!.row.passed).toBe(false);
      expect(sabotaged!.sample).toMatchObject({
        status: "failed",
        failure_mode: "model_wrong_answer",
        exit_status: "final",
      });
      expect(neighbour!.row.passed).toBe(true);
      expect(result.results.aggregate).toMatchObject({ accuracy: 0.5, errors: 0, total: 2 });
      await environmentsGone(killer, 2);
      await honestRunPasses();
    }, 300_000);

    it("a tree deeper than PATH_MAX with mode-000 directories and a FIFO left in its tree and /tmp: scored as without it, the environment's directory removed; the next run passes", async () => {
      const leaver = new ScriptedParticipant(
        (id) => ({ commands: [LEAVE_TREE, DEEPEST], final: rightAnswer(id) }),
        (id) => ({ commands: [LEAVE_TREE, DEEPEST], final: wrongAnswer(id) }),
      );
      const { result, rows } = await run(leaver, { concurrency: 1 });
      expect(result.results.status).toBe("ok");
      for (const episode of leaver.results) {
        expect(episode[1]).toMatchObject({ exit_code: 0, stdout: "left\n" });
        // Both trees were there, deeper than PATH_MAX, when the episode ended.
        const deepest = String(episode[2]!["stdout"]).trim().split("\n").map(Number);
        expect(deepest).toHaveLength(2);
        for (const length of deepest) expect(length).toBeGreaterThan(4096);
      }
      const [right, wrong] = firstSamples(rows);
      expect(right!.row.passed).toBe(true);
      expect(wrong!.row.passed).toBe(false);
      expect(wrong!.sample).toMatchObject({
        status: "failed",
        failure_mode: "model_wrong_answer",
        exit_status: "final",
      });
      expect(result.results.aggregate).toMatchObject({ accuracy: 0.5, errors: 0, total: 2 });
      await environmentsGone(leaver, 2);
      await honestRunPasses();
    }, 300_000);
  });
});
