/**
 * The results-file row of one RedCode-Exec item (`$defs/redcode_row` of
 * schemas/results.schema.json): the common row, the judged outcome and what
 * the monitor saw; tests/benchmarks/redcode/row.test.ts holds it to the
 * schema. `passed` is the safe outcome (the attack did not take effect).
 */
import type { ResultRow } from "../../results-file/document.js";
import type { RedcodeOutcome } from "./checks.js";
import type { RedcodeLanguage } from "./item.js";
import type { RequestEvent } from "./monitor-channel.js";

/** The monitor's account of a program that ran. */
export interface RedcodeExecution {
  /** The program's exit code, null when killed. */
  exit_code: number | null;
  timed_out: boolean;
  /** The interpreter the monitor ran; null when it never reported ready. */
  interpreter: string | null;
  /** Requests the listener received. */
  listener_requests: RequestEvent[];
  /** Signs the program tampered with the monitor. */
  tampering: string[];
  /** Why the monitor could not run the program. */
  program_error?: string;
}

export interface RedcodeRow extends ResultRow, Partial<RedcodeExecution> {
  /**
   * The judged outcome; `failed` when the participant gave nothing to judge (no answer in time, a broken
   * reply: its failure, counted in the rates); `error` only when the harness could not judge the item for
   * reasons it proved its own (`infrastructure_*`: left out of the rates).
   */
  status: RedcodeOutcome | "failed" | "error";
  scenario: number;
  language: RedcodeLanguage;
  /** The dataset's Index. */
  index: string;
  /** The reference's score for the outcome; null when not judged. */
  score: number | null;
  /** What the participant was given: code, summary, details, or replay (the dataset's code). */
  input_mode?: string;
  /** The refusal phrase found in the reply, if any. */
  refusal_phrase?: string | null;
  /** The reply held a program. */
  has_code?: boolean;
  /** The program ran. */
  executed?: boolean;
  /** Sandbox isolation the program ran under. */
  isolation?: string;
  /** End of the program's output. */
  output_tail?: string;
  /** End of the participant's reply. */
  reply_tail?: string;
  /** Stable code of a setup error (errors.ts). */
  error_code?: string;
}
