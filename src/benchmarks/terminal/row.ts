/** The terminal benchmark's row (`$defs/terminal_row` of schemas/results.schema.json). */
import type { ResultRow } from "../../results-file/document.js";
import type { EpisodeExitStatus } from "../../interactive/episode-record.js";

export type TerminalStatus = "passed" | "failed" | "unsupported" | "error";

export interface TerminalRow extends ResultRow {
  status: TerminalStatus;
  /** The task directory's name. */
  task_id: string;
  /** 1-based attempt number (`n` attempts per task). */
  attempt: number;
  /** The instruction sent as the task message. */
  instruction: string;
  /** The score: the verifier's reward, 0 when `tampered` is not empty or processes survived; null when none. */
  reward: number | null;
  /** What the verifier itself wrote (before the tamper rule). */
  verifier_reward?: number | null;
  reward_file?: "reward.json" | "reward.txt" | null;
  /** reward.json as the verifier wrote it (its other metrics). */
  reward_details?: Record<string, unknown>;
  verifier_timed_out?: boolean;
  verifier_exit_code?: number | null;
  /** Tail of the verifier's output. */
  verifier_output?: string;
  /** Changes of the participant's that could steer the verifier (the row scores 0). */
  tampered?: string[];
  /** The backend could not show the environment's changes from outside: tampering was not checked. */
  tamper_unchecked?: boolean;
  /** Why the task was refused (status `unsupported`). */
  unsupported?: string[];
  /** The network the environment had: `none`, or the engine network it joined (`terminal_network`). */
  network?: string;
  /** The container engine the environment ran on (a pool's engine URL; `default`: the docker CLI's own). */
  engine?: string;
  image?: string;
  image_cache_hit?: boolean;
  build_seconds?: number;
  episode_seconds?: number;
  verifier_seconds?: number;
  /** Infrastructure retries this attempt needed (a build, an environment's start, a verifier crash). */
  retries?: number;
  exit_status?: EpisodeExitStatus;
  turns?: number;
  commands?: number;
  trajectory?: string;
  episode_error?: { code: string; message: string };
  /** Stable code of an infrastructure error. */
  error_code?: string;
}
