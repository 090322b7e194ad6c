/**
 * Completions that try to win a pass they did not earn, scored through the
 * real benchmark and the real local sandbox: each must come out `failed`
 * (the model's failure, not an error) with the reason in the row.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import type { Participant } from "../../../src/a2a/participant.js";
import { createHumanEvalBenchmark, type HumanEvalItem } from "../../../src/benchmarks/humaneval/benchmark.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import type { RunOptions } from "../../../src/runner/options.js";
import { silentLogger } from "../../../src/util/logger.js";

const problem = SAMPLE_PROBLEMS.find((p) => p.entry_point === "digit_root");
if (!problem) throw new Error("fixture problem missing");
const item: HumanEvalItem = { id: problem.task_id, problem };
const WRONG = "def digit_root(n):\n    return -1\n";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 4 });
});
afterAll(async () => {
  await sandbox.close();
});

async function evaluate(replies: string[]) {
  let i = 0;
  const participant: Participant = {
    url: "scripted:",
    async ask() {
      return { text: replies[i++ % replies.length] ?? "", data: [], state: "completed" };
    },
    async close() {},
  };
  const options: RunOptions = {
    benchmark: "humaneval",
    run_id: "t",
    out: "/nonexistent",
    dataset: "sample",
    n: replies.length,
    k: [1],
    per_task_timeout_seconds: 3,
  };
  return createHumanEvalBenchmark().evaluate(item, {
    options,
    sandbox,
    participant,
    logger: silentLogger(),
    signal: new AbortController().signal,
    workDir: "/nonexistent",
  });
}

const fenced = (code: string): string => "```python\n" + code + "```";

describe("HumanEval: exits and forgeries before check() are failures with a reason", () => {
  it.each([
    ["sys.exit(0)", WRONG + "import sys\nsys.exit(0)\n", "model_exit_before_check"],
    ["raise SystemExit", WRONG + "raise SystemExit(0)\n", "model_exit_before_check"],
    ["os._exit(0)", WRONG + "import os\nos._exit(0)\n", "model_exit_before_check"],
    [
      "SIGKILL to itself",
      WRONG + "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
      "model_exit_before_check",
    ],
    ["forged proof channel", WRONG + "import os\nos.write(3, b'f' * 32)\nos._exit(0)\n", "model_tampered"],
    [
      "trace hook",
      WRONG + "import sys\nsys.settrace(lambda *a: None)\nsys.settrace(None)\nsys.exit(0)\n",
      "model_tampered",
    ],
  ])("%s", async (_name, code, mode) => {
    const row = await evaluate([fenced(code)]);
    expect(row).toMatchObject({ status: "failed", passed: false, failure_mode: mode, num_correct: 0 });
    const sample = (row["samples"] as Array<Record<string, unknown>>)[0]!;
    expect(sample["proof"]).not.toBe("verified");
    expect(String(row["reason"])).toMatch(/check\(\)|proof/);
  });

  it("an honest correct completion still passes, with its proof verified", async () => {
    const row = await evaluate([fenced("def digit_root(n):\n    return 0 if n == 0 else 1 + (n - 1) % 9\n")]);
    expect(row).toMatchObject({ status: "passed", passed: true });
    expect((row["samples"] as Array<Record<string, unknown>>)[0]?.["proof"]).toBe("verified");
  });
});
