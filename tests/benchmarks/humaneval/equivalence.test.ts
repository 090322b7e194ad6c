/**
 * Our verdicts (batch replay: trusted checker + bwrap sandbox) against the
 * reference rule (the single program `prompt + completion + test +
 * check(entry_point)` in plain python3, pass = exit 0) on the official 164
 * problems: every canonical solution passes, and on a few hundred
 * non-adversarial mutants of them (return None, raise at entry, off-by-one on
 * an integer constant, a flipped comparison) pass/not is identical.
 * Skipped, and says so, when the dataset is absent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { HumanEvalChecker, type CheckCall } from "../../../src/benchmarks/humaneval/checker.js";
import { classifyReplay } from "../../../src/benchmarks/humaneval/classify.js";
import { fullDatasetPath, loadHumanEval } from "../../../src/benchmarks/humaneval/dataset.js";
import type { HumanEvalProblem } from "../../../src/benchmarks/humaneval/problem.js";
import { replayCompletions } from "../../../src/benchmarks/humaneval/replay.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import { silentLogger } from "../../../src/util/logger.js";
import { mutantsOf, type Mutant } from "./mutants.js";
import { realPython, referenceVerdicts } from "./reference-program.js";

const hasFull = existsSync(fullDatasetPath());
/** The original harness's per-problem limit. */
const TIMEOUT_MS = 3000;

let problems: HumanEvalProblem[] = [];
let sandbox: Sandbox;
const checker = new HumanEvalChecker();
const plans = new Map<string, Promise<CheckCall[]>>();
const plan = (p: HumanEvalProblem): Promise<CheckCall[]> => {
  let x = plans.get(p.task_id);
  if (!x) plans.set(p.task_id, (x = checker.record(p)));
  return x;
};

beforeAll(async () => {
  if (!hasFull) return;
  problems = (await loadHumanEval("humaneval-full")).problems;
  sandbox = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 2 });
});
afterAll(async () => {
  await sandbox?.close();
  await checker.close();
});

/** Our pass/not for each (problem, completion), one execMany per problem. */
async function ourVerdicts(jobs: readonly Mutant[]): Promise<Array<{ passed: boolean; mode: string | null }>> {
  const out = new Array<{ passed: boolean; mode: string | null }>(jobs.length);
  const byTask = new Map<string, number[]>();
  jobs.forEach((j, i) => byTask.set(j.problem.task_id, [...(byTask.get(j.problem.task_id) ?? []), i]));
  const tasks = [...byTask.values()];
  const lane = async (): Promise<void> => {
    for (let idx = tasks.shift(); idx; idx = tasks.shift()) {
      const problem = jobs[idx[0]!]!.problem;
      const replayed = await replayCompletions(
        problem,
        idx.map((i) => jobs[i]!.completion),
        // As the runner does: answer jobs load the codec compiled by the checker's interpreter.
        { sandbox, checker, plan, answerCodec: () => checker.answerCodec(), timeoutMs: TIMEOUT_MS },
      );
      replayed.forEach((r, j) => {
        const v = classifyReplay(r, problem.entry_point);
        out[idx[j]!] = { passed: v.status === "passed", mode: v.failure_mode };
      });
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
  return out;
}

describe("HumanEval batch replay vs the reference single program", () => {
  it.skipIf(!hasFull)(
    `the 164 canonical solutions all pass in the bwrap sandbox (skipped when ${fullDatasetPath()} is absent)`,
    async () => {
      expect(sandbox.isolation).toBe("bwrap");
      const gold = problems.map((problem) => ({ problem, kind: "canonical", completion: problem.canonical_solution }));
      const ours = await ourVerdicts(gold);
      expect(gold.filter((_, i) => !ours[i]?.passed).map((g, i) => `${g.problem.task_id}: ${ours[i]?.mode}`)).toEqual(
        [],
      );
      expect(problems).toHaveLength(164);
    },
    60_000,
  );

  it.skipIf(!hasFull)(
    "identical pass/not verdicts on a few hundred mutants of the canonical solutions",
    async () => {
      const mutants = problems.flatMap(mutantsOf);
      const started = performance.now();
      const [ours, reference] = await Promise.all([
        ourVerdicts(mutants),
        referenceVerdicts(mutants, { python: realPython(), timeoutMs: TIMEOUT_MS, concurrency: 2 }),
      ]);
      const differ = mutants
        .map((m, i) => ({ m, ours: ours[i], ref: reference[i] }))
        .filter((x) => x.ours?.passed !== x.ref)
        .map((x) => `${x.m.problem.task_id} ${x.m.kind}: ours ${x.ours?.passed} (${x.ours?.mode}), reference ${x.ref}`);
      const passing = reference.filter(Boolean).length;
      const byKind: Record<string, number> = {};
      for (const m of mutants) byKind[m.kind.replace(/#\d$/, "")] = (byKind[m.kind.replace(/#\d$/, "")] ?? 0) + 1;
      console.log(
        `equivalence: ${mutants.length} mutants (${JSON.stringify(byKind)}), ${passing} pass under the reference, ` +
          `${mutants.length - passing} do not; ${differ.length} verdicts differ; ` +
          `${Math.round(performance.now() - started)} ms`,
      );
      expect(differ).toEqual([]);
      expect(mutants.length).toBeGreaterThan(300);
    },
    // A few hundred programs twice (ours and the reference), each up to its timeout: minutes on a loaded 2-core machine.
    300_000,
  );
});
