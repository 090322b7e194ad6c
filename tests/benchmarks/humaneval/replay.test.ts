/**
 * Batch replay end to end on synthetic problems, real checker and real local
 * sandbox: the rounds mechanism for a check whose second call's argument is
 * computed from the first answer, its bound, and the candidate side's framing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HumanEvalChecker } from "../../../src/benchmarks/humaneval/checker.js";
import { classifyReplay } from "../../../src/benchmarks/humaneval/classify.js";
import type { HumanEvalProblem } from "../../../src/benchmarks/humaneval/problem.js";
import { MAX_ROUNDS, replayCompletions } from "../../../src/benchmarks/humaneval/replay.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import { silentLogger } from "../../../src/util/logger.js";
import { referencePasses } from "./reference-program.js";

/** check()'s second argument is computed from the first answer. */
const dependent: HumanEvalProblem = {
  task_id: "Synthetic/dependent",
  prompt: 'def double(x):\n    """2 * x."""\n',
  canonical_solution: "    return 2 * x\n",
  entry_point: "double",
  test: [
    "def check(candidate):",
    "    a = candidate(3)",
    "    assert a % 2 == 0",
    "    b = candidate(a + 1)",
    "    assert b == 2 * (a + 1)",
  ].join("\n"),
};

/** Every call's argument is the previous answer: a candidate that differs moves every later call. */
const chain: HumanEvalProblem = {
  task_id: "Synthetic/chain",
  prompt: 'def step(x):\n    """x + 1."""\n',
  canonical_solution: "    return x + 1\n",
  entry_point: "step",
  test: "def check(candidate):\n    x = 0\n    for _ in range(20):\n        x = candidate(x)\n    assert x > 0\n",
};

/** As {@link chain}, with more answer-dependent calls than there are rounds. */
const longChain: HumanEvalProblem = { ...chain, task_id: "Synthetic/long-chain", test: chain.test.replace("20", "40") };

let sandbox: Sandbox;
const checker = new HumanEvalChecker();
beforeAll(async () => {
  sandbox = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 2 });
});
afterAll(async () => {
  await sandbox.close();
  await checker.close();
});

async function judge(problem: HumanEvalProblem, completions: string[]) {
  const plan = checker.record(problem);
  const out = await replayCompletions(problem, completions, { sandbox, checker, plan: () => plan, timeoutMs: 5000 });
  return out.map((r) => ({ ...classifyReplay(r, problem.entry_point), rounds: r.rounds, calls: r.calls }));
}

describe("rounds: a check whose later arguments depend on earlier answers", () => {
  it("judges each completion as the single program would, answering again on the moved arguments", async () => {
    const completions = [
      "    return x + x\n", // the reference's answers: one round
      "    return 2 * x + (4 if x == 3 else 0)\n", // a = 10, so the check asks for 11 (not 7): right there too
      "    return 2 * x + (4 if x == 3 else 1)\n", // a = 10, then a wrong answer for 11
      "    return 7 if x == 3 else 2 * x\n", // a = 7: the first assert already fails
    ];
    const verdicts = await judge(dependent, completions);
    expect(verdicts.map((v) => v.status)).toEqual(["passed", "passed", "failed", "failed"]);
    expect(verdicts.map((v) => v.rounds)).toEqual([1, 2, 2, 1]);
    expect(completions.map((c) => referencePasses(dependent, c))).toEqual([true, true, false, false]);
  });

  it("a consistent completion moves the divergence one call later per round and settles (20 dependent calls)", async () => {
    const [v] = await judge(chain, ["    return x + 2\n"]);
    expect(v).toMatchObject({ status: "passed", rounds: 20, calls: 20 });
    expect(referencePasses(chain, "    return x + 2\n")).toBe(true);
    const [ok] = await judge(chain, ["    return x + 1\n"]);
    expect(ok).toMatchObject({ status: "passed", rounds: 1, calls: 20 });
  }, 60_000);

  it("gives up after MAX_ROUNDS as our error, not a score, only for a check with more dependent calls than rounds", async () => {
    const [v] = await judge(longChain, ["    return x + 2\n"]);
    expect(v).toMatchObject({ status: "error", failure_mode: "infrastructure_checker", rounds: MAX_ROUNDS });
    expect(v?.reason).toMatch(/answer rounds/);
  }, 60_000);

  it("a completion that answers the same calls differently in the next round fails there (it cannot spin the rounds into our error)", async () => {
    const [v] = await judge(dependent, ["    import os\n    return 2 * int.from_bytes(os.urandom(4), 'big')\n"]);
    expect(v).toMatchObject({ status: "failed", failure_mode: "model_wrong_answer", rounds: 2 });
    expect(v?.reason).toMatch(/answered call 0 differently in round 2/);
  });
});

describe("the candidate side", () => {
  it("gets calls larger than the local sandbox passes on stdin (64 KiB): an honest completion passes", async () => {
    const big: HumanEvalProblem = {
      task_id: "Synthetic/big-arguments",
      prompt: 'def size(s):\n    """len(s)."""\n',
      canonical_solution: "    return len(s)\n",
      entry_point: "size",
      test: "def check(candidate):\n    for k in range(4):\n        assert candidate('x' * 40000 + str(k)) == 40001\n",
    };
    const [v] = await judge(big, ["    return len(s)\n"]);
    expect(v).toMatchObject({ status: "passed", rounds: 1, calls: 4 });
  });

  it("its prints go to stderr and cannot forge or break the framing; a crash keeps the answers before it", async () => {
    const [printing, crashing] = await judge(dependent, [
      '    print(\'{"i": 0, "ok": {"i": "6"}}\')\n    print("passed")\n    return 2 * x\n',
      "    import os\n    if x != 3:\n        os._exit(0)\n    return 2 * x\n",
    ]);
    expect(printing).toMatchObject({ status: "passed" });
    expect(crashing).toMatchObject({ status: "failed", failure_mode: "model_exit_before_check" });
    expect(crashing?.reason).toMatch(/before answering call 1/);
  });

  it("a return value that is not plain data answers as an exception", async () => {
    const [v] = await judge(dependent, [
      "    class Even(int):\n        def __eq__(self, o):\n            return True\n    return Even(6)\n",
    ]);
    expect(v).toMatchObject({ status: "error", failure_mode: "model_exception", exception: "UnsupportedReturnType" });
  });

  it("a missing entry point is a wrong interface", async () => {
    const [v] = await judge(dependent, ["    return 2 * x\ndel double\n"]);
    expect(v).toMatchObject({ status: "error", failure_mode: "model_wrong_interface" });
  });
});

describe("a judge slowed by the candidate's answers", () => {
  /** The check is cheap on the reference's answer (an int) and slow on a long list (sorted many times). */
  const slowOnLists: HumanEvalProblem = {
    task_id: "Synthetic/slow-on-lists",
    prompt: 'def answer(x):\n    """x."""\n',
    canonical_solution: "    return x\n",
    entry_point: "answer",
    test: [
      "def check(candidate):",
      "    r = candidate(7)",
      "    if isinstance(r, list):",
      "        for _ in range(10 ** 6):",
      "            sorted(r)",
      "    assert r == 7",
    ].join("\n"),
  };

  it("is the candidate's timeout, not our error (the same check finished on the reference's answers)", async () => {
    const short = new HumanEvalChecker(undefined, 1500);
    try {
      const plan = short.record(slowOnLists);
      const [slow, honest] = await replayCompletions(
        slowOnLists,
        ["    return list(range(50000))\n", "    return x\n"],
        { sandbox, checker: short, plan: () => plan, timeoutMs: 5000 },
      );
      const v = classifyReplay(slow!, slowOnLists.entry_point);
      expect(v.status).toBe("timeout");
      expect(v.failure_mode).toBe("timeout");
      expect(v.reason).toMatch(/ran past the checker's bound on this completion's answers/);
      expect(classifyReplay(honest!, slowOnLists.entry_point).status).toBe("passed");
    } finally {
      await short.close();
    }
  });
});
