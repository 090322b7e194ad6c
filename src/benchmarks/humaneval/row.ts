/**
 * The results-file row of one HumanEval task (`$defs/humaneval_row` of
 * schemas/results.schema.json) and the verdict of each of its completions
 * (`$defs/humaneval_sample`); tests/benchmarks/humaneval/row.test.ts holds
 * both to the schema.
 */
import type { TokenUsage } from "../../a2a/shared/usage.js";
import type { ResultRow } from "../../results-file/document.js";
import type { CompletionStatus, FailureMode } from "./classify.js";
import type { EpisodeExitStatus } from "../../interactive/episode-record.js";

/** An interactive sample's episode (episode.ts): how it ended, what it cost, where the answer came from. */
export interface EpisodeSampleFields {
  exit_status: EpisodeExitStatus;
  /** Participant replies received. */
  turns: number;
  /** Commands run in the environment. */
  commands: number;
  command_seconds: number;
  participant_seconds: number;
  /** Output streams cut before they were sent. */
  truncations: number;
  /** The episode's trajectory (JSON Lines), relative to the run's directory. */
  trajectory: string;
  /** `final`: the final output held the code; `file`: solution.py was read back; null: no answer. */
  answer_source: "final" | "file" | null;
  /** Why the episode ended early. */
  episode_error?: { code: string; message: string };
}

/**
 * Characters of a program's stdout and stderr a completion record keeps (the end of each). Why: the sandbox
 * hands back up to its output limit (1 MiB) per stream, and a row holds n records until its checkpoint line
 * is written, so a task's memory, its checkpoint line and results.json grew with n times what each completion
 * printed. The judge reads the whole answer channel before this cut; what is kept only explains a verdict.
 */
export const KEPT_TAIL_CHARS = 4000;

/** The end of `text` a completion record keeps ({@link KEPT_TAIL_CHARS}), never splitting a surrogate pair. */
export function keptTail(text: string): string {
  if (text.length <= KEPT_TAIL_CHARS) return text;
  let start = text.length - KEPT_TAIL_CHARS;
  const code = text.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start++; // a low surrogate: its pair's high half was cut
  return text.slice(start);
}

/** One completion as stored in a row's `samples` (interactive: with its episode's fields). */
export interface CompletionRecord extends Partial<EpisodeSampleFields> {
  status: CompletionStatus;
  failure_mode: FailureMode | null;
  /** The sandbox stopped the program for a containment limit (output, memory, processes, network). */
  limit_breach: boolean;
  /** Whether the program reached the sandbox. */
  executed: boolean;
  /** Sandbox run time, ms; null when not run. */
  duration_ms: number | null;
  /** How the code was extracted from the reply (`none`: no code). */
  completion_kind: string;
  /** The completion as run, first characters (the program can be rebuilt from it). */
  completion: string;
  /** Time the participant took to answer, seconds. */
  agent_seconds: number;
  /** Tokens the participant reported for this answer. */
  usage?: TokenUsage;
  /** Why it did not run (no answer, no code, sandbox failure). */
  error?: string;
  exit_code?: number | null;
  signal?: string | null;
  /** The exception type the candidate's function raised (or, with an answer missing, the last on its stderr). */
  exception?: string | null;
  /** Why it did not pass, in words (null when it passed). */
  reason?: string | null;
  /** Answer rounds of the batch replay (see replay.ts). */
  rounds?: number;
  /** Calls of check() to the entry point in the last round. */
  calls?: number;
  /** End of the answer channel (the program's stdout), last {@link KEPT_TAIL_CHARS} characters. */
  stdout_tail?: string;
  /** End of stderr, where the candidate's own prints go, last {@link KEPT_TAIL_CHARS} characters. */
  stderr_tail?: string;
  /** The participant's reply when no code could be taken from it, last {@link KEPT_TAIL_CHARS} characters. */
  reply_tail?: string;
}

/** One task: `passed` when all n completions passed, else the status of the first completion that did not. */
export interface HumanEvalRow extends ResultRow {
  /** `canceled`: a stopped run's unfinished task, which the runner drops (never in results.json). */
  status: CompletionStatus | "canceled";
  task_id: string;
  entry_point: string;
  /** Present on interactive runs: each completion was one episode in its own environment. */
  interaction?: "interactive";
  /** Completions evaluated. */
  n: number;
  /** Completions that passed. */
  num_correct: number;
  /** One verdict per completion, in the order asked (or read). */
  samples: CompletionRecord[];
}
