import { describe, expect, it } from "vitest";
import { classifyOutcome, lastException } from "../../../src/benchmarks/humaneval/classify.js";
import type { ExecOutcome } from "../../../src/sandbox/types.js";

const base: ExecOutcome = {
  exitCode: 1,
  signal: null,
  timedOut: false,
  isCanceled: false,
  outputLimitExceeded: false,
  durationMs: 5,
  stdoutTail: "",
  stderrTail: "",
};
const tb = (last: string): string =>
  `Traceback (most recent call last):\n  File "solution.py", line 3, in <module>\n${last}\n`;

describe("classifyOutcome", () => {
  it.each([
    [{ exitCode: 0 }, "passed", null],
    [{ exitCode: null, signal: "SIGKILL", timedOut: true }, "timeout", "timeout"],
    [{ stderrTail: tb("AssertionError") }, "failed", "model_wrong_answer"],
    [{ stderrTail: tb("ZeroDivisionError: division by zero") }, "error", "model_exception"],
    [{ stderrTail: tb("  File x\nSyntaxError: invalid syntax") }, "error", "model_syntax_error"],
    [{ stderrTail: tb("NameError: name 'f' is not defined") }, "error", "model_wrong_interface"],
    [{ stderrTail: tb("MemoryError") }, "error", "safety_memory_limit"],
    [{ outputLimitExceeded: true, exitCode: null, signal: "SIGKILL" }, "error", "safety_output_limit"],
    [
      { stderrTail: tb("BlockingIOError: [Errno 11] Resource temporarily unavailable") },
      "error",
      "safety_process_limit",
    ],
    [{ stderrTail: tb("OSError: [Errno 101] Network is unreachable") }, "error", "safety_network"],
    [{ infraError: "bwrap failed" }, "error", "infrastructure_sandbox"],
  ] as Array<[Partial<ExecOutcome>, string, string | null]>)("%o → %s / %s", (over, status, mode) => {
    const v = classifyOutcome({ ...base, ...over }, "f");
    expect(v.status).toBe(status);
    expect(v.failure_mode).toBe(mode);
    expect(v.limit_breach).toBe(String(mode).startsWith("safety_"));
  });

  it("takes the last exception of a chained traceback", () => {
    expect(lastException(tb("KeyError: 1") + "\nDuring handling...\n" + tb("AssertionError"))).toBe("AssertionError");
  });
});
