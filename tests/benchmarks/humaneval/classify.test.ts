import { describe, expect, it } from "vitest";
import { classifyReplay, lastException } from "../../../src/benchmarks/humaneval/classify.js";
import type { JudgeResult } from "../../../src/benchmarks/humaneval/checker.js";
import type { Replayed } from "../../../src/benchmarks/humaneval/replay.js";
import type { ExecOutcome } from "../../../src/sandbox/types.js";

const base: ExecOutcome = {
  exitCode: 0,
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
const missing: JudgeResult = { verdict: "missing", call: 0, answered: 0 };
const replayed = (judge: JudgeResult | null, over: Partial<ExecOutcome> = {}, checkerError: string | null = null) =>
  ({ outcome: { ...base, ...over }, judge, checkerError, rounds: 1, calls: 3 }) satisfies Replayed;

describe("classifyReplay: the check's own verdict decides when it has one", () => {
  it.each([
    [{ verdict: "pass" }, "passed", null, null],
    [{ verdict: "wrong_answer", message: "", call: 1 }, "failed", "model_wrong_answer", "AssertionError"],
    [
      { verdict: "exception", exception: "ValueError", message: "x", call: 0 },
      "error",
      "model_exception",
      "ValueError",
    ],
    [
      { verdict: "exception", exception: "UnsupportedReturnType", message: "_Any", call: 0 },
      "error",
      "model_exception",
      "UnsupportedReturnType",
    ],
    [{ verdict: "check_error", exception: "TypeError", message: "", call: 2 }, "error", "model_exception", "TypeError"],
    [{ verdict: "interface", message: "entry point 'f' is not defined" }, "error", "model_wrong_interface", null],
    [
      { verdict: "exception", exception: "MemoryError", message: "", call: 0 },
      "error",
      "safety_memory_limit",
      "MemoryError",
    ],
    [
      { verdict: "exception", exception: "OSError", message: "[Errno 101] Network is unreachable", call: 0 },
      "error",
      "safety_network",
      "OSError",
    ],
  ] as Array<[JudgeResult, string, string | null, string | null]>)("%o → %s / %s", (judge, status, mode, exc) => {
    // Whatever the job's exit looked like: a killed job that answered everything still passes on the check.
    const v = classifyReplay(replayed(judge, { exitCode: null, signal: "SIGKILL" }), "f");
    expect(v).toMatchObject({ status, failure_mode: mode, exception: exc });
  });
});

describe("classifyReplay: a missing answer is explained by how the job ended", () => {
  it.each([
    [{ exitCode: null, signal: "SIGKILL", timedOut: true }, "timeout", "timeout"],
    [{ exitCode: null, signal: "SIGXCPU" }, "timeout", "timeout"],
    [{ exitCode: 1, stderrTail: tb("MemoryError") }, "error", "safety_memory_limit"],
    [{ outputLimitExceeded: true, exitCode: null, signal: "SIGKILL" }, "error", "safety_output_limit"],
    [
      { exitCode: 1, stderrTail: tb("BlockingIOError: [Errno 11] Resource temporarily unavailable") },
      "error",
      "safety_process_limit",
    ],
    [{ exitCode: 1, stderrTail: tb("OSError: [Errno 101] Network is unreachable") }, "error", "safety_network"],
    [{ exitCode: 1, stderrTail: tb("  File x\nSyntaxError: invalid syntax") }, "error", "model_syntax_error"],
    [{ exitCode: 1, stderrTail: tb("NameError: name 'f' is not defined") }, "error", "model_wrong_interface"],
    [{ exitCode: 1, stderrTail: tb("ZeroDivisionError: division by zero") }, "error", "model_exception"],
    [{ exitCode: 0 }, "failed", "model_exit_before_check"],
    [{ exitCode: null, signal: "SIGTERM" }, "failed", "model_exit_before_check"],
    [{ exitCode: null, signal: "SIGKILL" }, "failed", "model_exit_before_check"],
    [{ exitCode: null, signal: "SIGSEGV" }, "error", "safety_memory_limit"],
  ] as Array<[Partial<ExecOutcome>, string, string | null]>)("%o → %s / %s", (over, status, mode) => {
    const v = classifyReplay(replayed(missing, over), "f");
    expect(v.status).toBe(status);
    expect(v.failure_mode).toBe(mode);
    expect(v.limit_breach).toBe(String(mode).startsWith("safety_"));
  });

  it("a syntax error after some answers is not a syntax error of the completion", () => {
    const v = classifyReplay(
      replayed({ verdict: "missing", call: 2, answered: 2 }, { exitCode: 1, stderrTail: tb("SyntaxError: x") }),
      "f",
    );
    expect(v.failure_mode).toBe("model_exception");
  });

  it("a malformed answer channel is the candidate's tampering; a limit breach explains it first", () => {
    const bad: JudgeResult = { verdict: "malformed", message: "answer line 0 is not JSON" };
    expect(classifyReplay(replayed(bad), "f")).toMatchObject({ status: "failed", failure_mode: "model_tampered" });
    expect(classifyReplay(replayed(bad, { outputLimitExceeded: true }), "f").failure_mode).toBe("safety_output_limit");
  });
});

describe("classifyReplay: our failures are errors, never scores", () => {
  it("sandbox infrastructure failure", () => {
    const v = classifyReplay(replayed({ verdict: "pass" }, { infraError: "bwrap failed" }), "f");
    expect(v).toMatchObject({ status: "error", failure_mode: "infrastructure_sandbox" });
  });
  it("checker failure, even with a passing judge of an earlier round", () => {
    const v = classifyReplay(replayed({ verdict: "pass" }, {}, "checker did not answer"), "f");
    expect(v).toMatchObject({ status: "error", failure_mode: "infrastructure_checker" });
  });
  it("never judged", () => {
    expect(classifyReplay(replayed(null), "f").failure_mode).toBe("infrastructure_checker");
  });
});

describe("lastException", () => {
  it("takes the last exception of a chained traceback", () => {
    expect(lastException(tb("KeyError: 1") + "\nDuring handling...\n" + tb("AssertionError"))).toBe("AssertionError");
  });
});
