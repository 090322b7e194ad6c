/**
 * Turn one sandbox outcome into HumanEval's verdict plus our failure mode.
 * pass = exit 0 within the time limit (the authors' rule) AND, when the run
 * asked for one, a verified pass proof: the program's code returned normally,
 * so `check(entry_point)` ran to its end. Exit 0 without the proof is the
 * model's failure, not an error: `model_exit_before_check` (sys.exit(0),
 * os._exit(0), a signal before the check finished) or `model_tampered`
 * (a forged proof, a trace/profile hook, reaching into the harness). Otherwise:
 * `timeout` (wall or CPU limit), `failed` (an AssertionError: the solution
 * answered wrongly), `error` (anything else: no code, syntax error, another
 * exception, a limit breach, infrastructure). The exception type is read from
 * the last `XxxError:` line of the stderr tail (Python prints it last).
 */
import type { ExecOutcome } from "../../sandbox/types.js";
import { assertNever } from "../../util/errors.js";

export type CompletionStatus = "passed" | "failed" | "timeout" | "error";

/** Why a completion did not pass. `safety_*` are limit breaches the sandbox stopped. */
export type FailureMode =
  | "model_no_code"
  | "model_syntax_error"
  | "model_wrong_interface"
  | "model_wrong_answer"
  | "model_exception"
  | "model_agent_timeout"
  | "model_exit_before_check"
  | "model_tampered"
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
  /** Why the verdict is what it is, in words, when the proof decided it (null otherwise). */
  reason: string | null;
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
  const v = (
    status: CompletionStatus,
    failure_mode: FailureMode | null,
    limit_breach = false,
    reason: string | null = null,
  ): Verdict => ({
    status,
    failure_mode,
    limit_breach,
    exception,
    reason,
  });
  if (outcome.infraError) return v("error", "infrastructure_sandbox");
  if (outcome.timedOut || outcome.signal === "SIGXCPU") return v("timeout", "timeout");
  if (outcome.outputLimitExceeded) return v("error", "safety_output_limit", true);
  const { proof, proofNote } = retiredProof(outcome);
  if (outcome.exitCode === 0 && outcome.signal === null) {
    if (proof === undefined || proof === "verified") return v("passed", null);
    const note = proofNote ? `: ${proofNote}` : "";
    switch (proof) {
      case "missing":
        return v(
          "failed",
          "model_exit_before_check",
          false,
          `exit 0 but the program did not return normally, so check() did not run to its end${note}`,
        );
      case "mismatch":
      case "tampered":
        return v("failed", "model_tampered", false, `exit 0 but the pass proof was ${proof}${note}`);
      case "unsupported":
        return v(
          "error",
          "infrastructure_sandbox",
          false,
          "this sandbox backend cannot prove that check() ran to its end",
        );
      default:
        return assertNever(proof, "proof");
    }
  }
  if (proof !== undefined && outcome.signal !== null && outcome.signal !== "SIGSEGV") {
    // Not our timeout, CPU or output stop (handled above): the program's own doing (it killed itself or its group).
    return v(
      "failed",
      "model_exit_before_check",
      false,
      `killed by ${outcome.signal} before check() finished (not by a sandbox limit)`,
    );
  }
  const err = outcome.stderrTail;
  if (exception === "MemoryError" || /Cannot allocate memory/.test(err)) return v("error", "safety_memory_limit", true);
  if (/BlockingIOError|Resource temporarily unavailable|fork: retry/.test(err))
    return v("error", "safety_process_limit", true);
  if (
    /Network is unreachable|Temporary failure in name resolution|Name or service not known|\[Errno (?:101|97)\]/.test(
      err,
    )
  ) {
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

/**
 * The sandbox no longer offers a pass proof (retired from src/sandbox; this benchmark is being changed
 * to judge from outside the sandbox): treated as absent, as for an outcome that never asked for one.
 */
function retiredProof(_o: ExecOutcome): {
  proof?: "verified" | "missing" | "mismatch" | "tampered" | "unsupported";
  proofNote?: string;
} {
  return {};
}
