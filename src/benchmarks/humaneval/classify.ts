/**
 * Turn one sandbox outcome into HumanEval's verdict plus our failure mode.
 * pass = exit 0 within the time limit (the authors' rule). Otherwise:
 * `timeout` (wall or CPU limit), `failed` (an AssertionError: the solution
 * answered wrongly), `error` (anything else: no code, syntax error, another
 * exception, a limit breach, infrastructure). The exception type is read from
 * the last `XxxError:` line of the stderr tail (Python prints it last).
 */
import type { ExecOutcome } from "../../sandbox/types.js";

export type CompletionStatus = "passed" | "failed" | "timeout" | "error";

/** Why a completion did not pass. `safety_*` are limit breaches the sandbox stopped. */
export type FailureMode =
  | "model_no_code"
  | "model_syntax_error"
  | "model_wrong_interface"
  | "model_wrong_answer"
  | "model_exception"
  | "model_agent_timeout"
  | "timeout"
  | "safety_output_limit"
  | "safety_memory_limit"
  | "safety_process_limit"
  | "safety_network"
  | "infrastructure_participant"
  | "infrastructure_sandbox";

/** Failure modes that mean the participant did not meet the task's interface (see adaptability). */
export const INTERFACE_FAILURES: ReadonlySet<FailureMode> = new Set([
  "model_no_code",
  "model_syntax_error",
  "model_wrong_interface",
]);

export interface Verdict {
  status: CompletionStatus;
  failure_mode: FailureMode | null;
  /** The sandbox stopped the program for a resource/containment limit (output, memory, processes, network). */
  limit_breach: boolean;
  /** Last exception type seen on stderr, if any. */
  exception: string | null;
}

const EXCEPTION_LINE = /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning))(?::|$)/gm;

/** Last Python exception type in a stderr tail. */
export function lastException(stderr: string): string | null {
  let last: string | null = null;
  for (const m of stderr.matchAll(EXCEPTION_LINE)) last = m[1] ?? null;
  return last;
}

/** Verdict of one executed program. */
export function classifyOutcome(outcome: ExecOutcome, entryPoint: string): Verdict {
  const exception = lastException(outcome.stderrTail);
  const v = (status: CompletionStatus, failure_mode: FailureMode | null, limit_breach = false): Verdict => ({
    status,
    failure_mode,
    limit_breach,
    exception,
  });
  if (outcome.infraError) return v("error", "infrastructure_sandbox");
  if (outcome.timedOut || outcome.signal === "SIGXCPU") return v("timeout", "timeout");
  if (outcome.outputLimitExceeded) return v("error", "safety_output_limit", true);
  if (outcome.exitCode === 0 && outcome.signal === null) return v("passed", null);
  const err = outcome.stderrTail;
  if (exception === "MemoryError" || /Cannot allocate memory/.test(err)) return v("error", "safety_memory_limit", true);
  if (/BlockingIOError|Resource temporarily unavailable|fork: retry/.test(err)) return v("error", "safety_process_limit", true);
  if (/Network is unreachable|Temporary failure in name resolution|Name or service not known|\[Errno (?:101|97)\]/.test(err)) {
    return v("error", "safety_network", true);
  }
  if (outcome.signal === "SIGKILL" || outcome.signal === "SIGSEGV") return v("error", "safety_memory_limit", true);
  if (exception === "AssertionError") return v("failed", "model_wrong_answer");
  if (exception === "SyntaxError" || exception === "IndentationError" || exception === "TabError") {
    return v("error", "model_syntax_error");
  }
  if (exception === "NameError" && err.includes(`'${entryPoint}'`)) return v("error", "model_wrong_interface");
  return v("error", "model_exception");
}
