/**
 * Completions that try to win a pass they did not earn, scored through the
 * real benchmark, the real checker and the real local sandbox: none may pass,
 * each is the model's failure (never ours), with the reason in the row.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import type { Participant } from "../../../src/a2a/shared/participant.js";
import { createHumanEvalBenchmark, type HumanEvalItem } from "../../../src/benchmarks/humaneval/definition.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import type { RunOptions } from "../../../src/runner/options.js";
import { testRunOptions } from "../../support/run-options.js";
import { KEPT_TAIL_CHARS } from "../../../src/benchmarks/humaneval/row.js";
import { silentLogger } from "../../../src/util/logger.js";

const problem = SAMPLE_PROBLEMS.find((p) => p.entry_point === "digit_root");
if (!problem) throw new Error("fixture problem missing");
const item: HumanEvalItem = { id: problem.task_id, problem };
const WRONG = "def digit_root(n):\n    return -1\n";

let sandbox: Sandbox;
const def = createHumanEvalBenchmark();
beforeAll(async () => {
  sandbox = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 4 });
});
afterAll(async () => {
  await def.endRun?.({ options: {} as RunOptions, logger: silentLogger(), workDir: "/nonexistent" });
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
  const options = testRunOptions({
    benchmark: "humaneval",
    run_id: "t",
    out: "/nonexistent",
    dataset: "sample",
    n: replies.length,
    k: [1],
    per_task_timeout_seconds: 3,
  });
  return def.evaluate(item, {
    options,
    sandbox,
    participant,
    logger: silentLogger(),
    signal: new AbortController().signal,
    workDir: "/nonexistent",
  });
}

const fenced = (code: string): string => "```python\n" + code + "```";

describe("HumanEval: exits and forgeries in the candidate's program are not passes, with a reason", () => {
  it.each([
    ["sys.exit(0) at import", WRONG + "import sys\nsys.exit(0)\n", "failed", "model_exit_before_check"],
    ["raise SystemExit at import", WRONG + "raise SystemExit(0)\n", "failed", "model_exit_before_check"],
    ["os._exit(0) at import", WRONG + "import os\nos._exit(0)\n", "failed", "model_exit_before_check"],
    [
      "SIGKILL to itself",
      WRONG + "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
      "failed",
      "model_exit_before_check",
    ],
    [
      "sys.exit(0) during a call (answers as the exception SystemExit)",
      "def digit_root(n):\n    import sys\n    sys.exit(0)\n",
      "error",
      "model_exception",
    ],
    [
      "garbage on the answer channel",
      WRONG + "import os\nos.write(_he_answer_fd, b'passed\\n')\nos._exit(0)\n",
      "failed",
      "model_tampered",
    ],
    [
      "a forged answer line before the real ones",
      WRONG + 'import os\nos.write(_he_answer_fd, b\'{"i": 0, "ok": {"i": "0"}}\\n\')\n',
      "failed",
      "model_tampered",
    ],
  ])("%s", async (_name, code, status, mode) => {
    const row = await evaluate([fenced(code)]);
    expect(row).toMatchObject({ status, passed: false, failure_mode: mode, num_correct: 0 });
    expect(String(row["reason"])).not.toBe("");
  });

  it("an honest correct completion still passes, judged in one round", async () => {
    const row = await evaluate([fenced("def digit_root(n):\n    return 0 if n == 0 else 1 + (n - 1) % 9\n")]);
    expect(row).toMatchObject({ status: "passed", passed: true });
    expect((row["samples"] as Array<Record<string, unknown>>)[0]).toMatchObject({ rounds: 1 });
  });
});

describe("HumanEval: what a completion prints is kept only at its end, whatever n", () => {
  it("a completion printing 600 KB (under the output limit) passes, its record keeps the last KEPT_TAIL_CHARS of each", async () => {
    const noisy =
      "import sys\nsys.stderr.write('e' * 300000 + 'END-OF-STDERR')\nprint('o' * 300000)\n" +
      "def digit_root(n):\n    return 0 if n == 0 else 1 + (n - 1) % 9\n";
    const row = await evaluate([fenced(noisy), fenced(noisy)]);
    expect(row).toMatchObject({ status: "passed", passed: true, n: 2, num_correct: 2 });
    for (const s of row["samples"] as Array<Record<string, unknown>>) {
      const err = String(s["stderr_tail"]);
      // print() lands on stderr too (fd 1 points at fd 2 before the candidate runs).
      expect(err.length).toBe(KEPT_TAIL_CHARS);
      expect(String(s["stdout_tail"]).length).toBeLessThanOrEqual(KEPT_TAIL_CHARS);
      expect(String(s["stdout_tail"])).toMatch(/^\{"i": 0, "ok"/);
    }
    // The row as checkpointed: bounded by n times the kept output, not by what the programs printed.
    expect(JSON.stringify(row).length).toBeLessThan(2 * (2 * KEPT_TAIL_CHARS + 10_000));
  });
});
