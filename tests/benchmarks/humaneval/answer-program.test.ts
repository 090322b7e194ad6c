/**
 * The answer program with its answer function loaded once where jobs are
 * forked: a job carries its header, prompt + completion and a two-line tail,
 * and answers exactly what a job carrying the whole function answers.
 */
import { describe, expect, it } from "vitest";
import {
  ANSWER_CODEC_PY,
  ANSWER_MODULE,
  ANSWER_MODULE_PY,
  answerFiles,
  buildAnswerProgram,
} from "../../../src/benchmarks/humaneval/answer-program.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { silentLogger } from "../../../src/util/logger.js";

const problem = { task_id: "T/0", prompt: "def f(x, d=None):\n", canonical_solution: "", test: "", entry_point: "f" };
const completion = "    if x == 2:\n        raise ValueError('two')\n    return {x: (x, [1.5], d)}\n";
const calls = [
  { a: { t: [{ i: "3" }] }, k: { d: [] } },
  { a: { t: [{ i: "2" }] }, k: { d: [] } },
];

describe("answer program with a preloaded answer module", () => {
  it("carries no codec or answer function, and answers as the self-contained program does", async () => {
    const lean = buildAnswerProgram(problem, completion, null, true);
    const whole = buildAnswerProgram(problem, completion, null, false);
    expect(lean).not.toContain(ANSWER_CODEC_PY.slice(0, 200));
    expect(lean).not.toContain("def _he_answer");
    expect(lean.length).toBeLessThan(problem.prompt.length + completion.length + 400);
    expect(whole).toContain("def _he_answer");

    const sb = await createSandbox({ backend: "local", logger: silentLogger() });
    try {
      sb.warmUp?.({ pythonModules: { [ANSWER_MODULE]: ANSWER_MODULE_PY }, pythonStdlibOnly: true });
      expect(sb.hasPythonModule?.(ANSWER_MODULE)).toBe(true);
      const job = (code: string) => ({
        language: "python" as const,
        code,
        files: answerFiles(calls),
        timeoutMs: 20_000,
      });
      const [a, b] = await sb.execMany([job(lean), job(whole)]);
      expect(a!.stderrTail).toBe("");
      expect(a!.stdoutTail).toBe(b!.stdoutTail);
      const lines = a!.stdoutTail
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as unknown);
      expect(lines).toEqual([
        { i: 0, ok: { d: [[{ i: "3" }, { t: [{ i: "3" }, { l: [{ f: "0x1.8000000000000p+0" }] }, null] }]] } },
        { i: 1, exc: ["ValueError", "two"] },
      ]);
    } finally {
      await sb.close();
    }
  });
});
