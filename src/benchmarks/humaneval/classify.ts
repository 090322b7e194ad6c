/**
 * Turn one completion's replay (replay.ts) into HumanEval's verdict plus our
 * failure mode. PASS = the trusted checker's replay of check() returned with
 * every call answered by the candidate. Otherwise, in this order:
 * - our side failed: the sandbox (`infrastructure_sandbox`) or the checker,
 *   including a check still diverging after the last round
 *   (`infrastructure_checker`): errors, never scores;
 * - the judge ran past the checker's bound on the candidate's answers
 *   (`timeout`): the same check finished on the reference's answers when
 *   the calls were recorded, so the answers made it slow;
 * - the candidate answered a call of an unchanged round prefix differently
 *   than the round before (`failed`, `model_wrong_answer`): its answers do
 *   not depend on the arguments alone, and no round will settle them;
 * - the check judged the answers it got: an assert failed (`failed`,
 *   `model_wrong_answer`), the candidate's function raised or returned data
 *   that is not plain (`error`, `model_exception`, the type name in
 *   `exception`), the check itself raised on an answer (`model_exception`),
 *   the entry point was not defined (`model_wrong_interface`);
 * - an answer was missing or the answer channel malformed, so the sandbox
 *   job's own ending explains it: `timeout` (wall or CPU limit), the `safety_*`
 *   limit breaches, a forged or broken answer channel (`model_tampered`), a
 *   syntax error with no answer at all (`model_syntax_error`), an exception at
 *   import (`model_exception`, or `model_wrong_interface` for a NameError on
 *   the entry point), else the program ended before it answered
 *   (`model_exit_before_check`: sys.exit, os._exit, a signal it sent itself).
 * The candidate's exit status never makes a pass: only the check does.
 */
import type { ExecOutcome } from "../../sandbox/types.js";
import { assertNever } from "../../util/errors.js";
import type { JudgeResult } from "./checker.js";
import type { Replayed } from "./replay.js";

export type CompletionStatus = "passed" | "failed" | "timeout" | "error";

/** Why a completion did not pass. `safety_*` are limit breaches the sandbox stopped. */
export type FailureMode =
  | "model_no_code"
  | "model_syntax_error"
  | "model_wrong_interface"
  | "model_wrong_answer"
  | "model_exception"
  | "model_agent_timeout"
  | "model_turn_limit"
  | "model_resource_limit"
  | "model_participant_error"
  | "model_exit_before_check"
  | "model_tampered"
  | "timeout"
  | "safety_output_limit"
  | "safety_memory_limit"
  | "safety_process_limit"
  | "safety_network"
  | "infrastructure_participant"
  | "infrastructure_sandbox"
  | "infrastructure_checker";

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
  /** The exception type the candidate's function raised (or, without an answer, the last one on its stderr). */
  exception: string | null;
  /** Why the verdict is what it is, in words (null for a pass). */
  reason: string | null;
}

const EXCEPTION_LINE = /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning))(?::|$)/gm;

/** Last Python exception type in a stderr tail. */
export function lastException(stderr: string): string | null {
  let last: string | null = null;
  for (const m of stderr.matchAll(EXCEPTION_LINE)) last = m[1] ?? null;
  return last;
}

function verdict(
  status: CompletionStatus,
  failure_mode: FailureMode | null,
  reason: string | null,
  exception: string | null = null,
  limit_breach = false,
): Verdict {
  return { status, failure_mode, limit_breach, exception, reason };
}

/** The check's own verdict on the answers it got; null when it rests on a missing answer or a bad channel. */
function fromJudge(j: JudgeResult): Verdict | null {
  switch (j.verdict) {
    case "pass":
      return verdict("passed", null, null);
    case "wrong_answer":
      return verdict("failed", "model_wrong_answer", `check() assertion failed after call ${j.call}`, "AssertionError");
    case "exception":
      return (
        limitBreach(`${j.exception}: ${j.message}`, j.exception) ??
        verdict("error", "model_exception", `call ${j.call} raised ${j.message}`.slice(0, 500), j.exception)
      );
    case "check_error":
      return verdict(
        "error",
        "model_exception",
        `check() raised ${j.exception} on the answer to call ${j.call}: ${j.message}`.slice(0, 500),
        j.exception,
      );
    case "interface":
      return verdict("error", "model_wrong_interface", j.message);
    case "missing":
    case "malformed":
      return null;
    case "diverged":
      return verdict("error", "infrastructure_checker", "check() arguments still diverging");
    default:
      return assertNever(j, "judge verdict");
  }
}

/** A sandbox containment limit the text (stderr, or a raised exception) shows, if any. */
function limitBreach(text: string, exception: string | null, at = ""): Verdict | null {
  const breach = (mode: FailureMode, what: string): Verdict =>
    verdict("error", mode, `${what} ${at}`.trim(), exception, true);
  if (exception === "MemoryError" || /Cannot allocate memory/.test(text))
    return breach("safety_memory_limit", "memory limit");
  if (/BlockingIOError|Resource temporarily unavailable|fork: retry/.test(text))
    return breach("safety_process_limit", "process limit");
  if (
    /Network is unreachable|Temporary failure in name resolution|Name or service not known|\[Errno (?:101|97)\]/.test(
      text,
    )
  )
    return breach("safety_network", "network use");
  return null;
}

/** A missing answer or a malformed channel, explained by how the job ended. */
function fromJob(o: ExecOutcome, j: JudgeResult, entryPoint: string): Verdict {
  const err = o.stderrTail;
  const exception = lastException(err);
  const answered = j.verdict === "missing" ? j.answered : 0;
  const at = j.verdict === "missing" ? `before answering call ${j.call}` : "";
  if (o.timedOut || o.signal === "SIGXCPU") return verdict("timeout", "timeout", `time limit ${at}`.trim());
  const breach = (mode: FailureMode, what: string): Verdict =>
    verdict("error", mode, `${what} ${at}`.trim(), exception, true);
  if (o.outputLimitExceeded) return breach("safety_output_limit", "output limit");
  const limit = limitBreach(err, exception, at);
  if (limit) return limit;
  // Not our timeout, CPU or output stop (handled above): a segfault is a stack or memory overrun; any other
  // signal is the program's own doing (it killed itself or its group), below.
  if (o.signal === "SIGSEGV") return breach("safety_memory_limit", `killed by ${o.signal}`);
  if (j.verdict === "malformed") return verdict("failed", "model_tampered", `answer channel: ${j.message}`, exception);
  if (answered === 0 && (exception === "SyntaxError" || exception === "IndentationError" || exception === "TabError"))
    return verdict("error", "model_syntax_error", `${exception} ${at}`.trim(), exception);
  if (answered === 0 && exception === "NameError" && err.includes(`'${entryPoint}'`))
    return verdict("error", "model_wrong_interface", `NameError on ${entryPoint}`, exception);
  if (exception !== null && o.exitCode !== 0)
    return verdict("error", "model_exception", `${exception} ${at}`.trim(), exception);
  const how = o.signal !== null ? `killed by ${o.signal}` : `exit code ${o.exitCode ?? "?"}`;
  return verdict("failed", "model_exit_before_check", `the program ended (${how}) ${at}`.trim(), exception);
}

/** Verdict of one replayed completion. */
export function classifyReplay(r: Replayed, entryPoint: string): Verdict {
  const o = r.outcome;
  if (o?.infraError !== undefined) return verdict("error", "infrastructure_sandbox", o.infraError);
  if (r.checkerError !== null) return verdict("error", "infrastructure_checker", r.checkerError);
  if (r.judgeTimedOut !== undefined)
    return verdict(
      "timeout",
      "timeout",
      `check() ran past the checker's bound on this completion's answers (${r.judgeTimedOut}); on the reference's answers it finished`,
    );
  if (!o || !r.judge) return verdict("error", "infrastructure_checker", "the completion was not judged");
  if (r.changedAnswer)
    return verdict(
      "failed",
      "model_wrong_answer",
      `answered call ${r.changedAnswer.call} differently in round ${r.changedAnswer.round} than in the round before ` +
        "(same arguments, same order): the answers must depend on the arguments alone",
    );
  return fromJudge(r.judge) ?? fromJob(o, r.judge, entryPoint);
}
