/**
 * The trajectory of one episode: a JSON Lines file, one line per event
 * (`episode_start`, one `turn` per participant reply, `episode_end`),
 * appended as the episode goes so a crash leaves every turn so far.
 *
 * Each line is written by ONE `write` on a file opened for appending and
 * flushed to disk (`datasync`) before the next, so a reader sees whole lines
 * only, except at worst a torn LAST line after a crash, which
 * {@link readTrajectory} reports and drops. Every text a participant or a
 * command produced is bounded (head + tail, truncate.ts) so a line stays
 * readable: {@link MAX_RECORDED_CHARS} per field.
 */
import { open, readFile, mkdir, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { truncateStream } from "./truncate.js";
import type { Action } from "./decode.js";
import type { AssessorMessage } from "./protocol.js";
import type { EpisodeLimits } from "./limits.js";
import type { InstanceFacts } from "./protocol.js";
import type { EpisodeRecord } from "./episode-record.js";

/** Characters kept of one recorded text (a raw reply, a command's stdout): 1 MiB worth. */
export const MAX_RECORDED_CHARS = 1_048_576;

/** A text as recorded: head + tail past {@link MAX_RECORDED_CHARS}. */
export function bounded(text: string, maxChars: number = MAX_RECORDED_CHARS): string {
  return truncateStream(text, maxChars).text;
}

export interface EpisodeStartLine {
  type: "episode_start";
  at: string;
  protocol: string;
  limits: EpisodeLimits;
  facts: InstanceFacts;
}

/** One participant turn: what was sent, what came back, what it meant, what ran. */
export interface TurnLine {
  type: "turn";
  turn: number;
  sent_at: string;
  replied_at: string | null;
  /** The message sent: its A2A ids and its text. */
  sent: { message_id: string; context_id: string; task_id: string; text: string };
  /** The reply: its ids and state, and the whole reply as JSON (bounded); absent when none came. */
  reply?: { state: string; context_id: string; task_id: string; message_id: string; raw: string };
  /** The decoded action (absent when no reply came). */
  action?: Action;
  /** The command's outcome, full output (bounded), when one ran. */
  command?: {
    exit_code: number | null;
    timed_out: boolean;
    duration_ms: number;
    stdout: string;
    stderr: string;
    infra_error?: string;
    limit_exceeded?: string;
  };
  /** The message that answers this turn (after truncation), when one follows. */
  result_sent?: AssessorMessage;
}

export interface EpisodeEndLine {
  type: "episode_end";
  at: string;
  record: EpisodeRecord;
}

export type TrajectoryLine = EpisodeStartLine | TurnLine | EpisodeEndLine;

/** Where an episode writes its trajectory (a file, or memory in tests). */
export interface TrajectorySink {
  write(line: TrajectoryLine): Promise<void>;
  close(): Promise<void>;
}

/** A sink appending to `path` (created with its directory; an existing file is appended to). */
export function trajectoryFile(path: string): TrajectorySink {
  let handle: Promise<FileHandle> | undefined;
  let queue: Promise<void> = Promise.resolve();
  const opened = (): Promise<FileHandle> =>
    (handle ??= mkdir(dirname(path), { recursive: true }).then(() => open(path, "a", 0o644)));
  return {
    write(line) {
      const text = `${JSON.stringify(line)}\n`;
      const next = queue.then(async () => {
        const h = await opened();
        await h.write(text);
        await h.datasync();
      });
      // A failed write fails this call; later lines still try (the caller decides what a failure means).
      queue = next.catch(() => {});
      return next;
    },
    async close() {
      await queue;
      if (handle) await (await handle).close();
      handle = undefined;
    },
  };
}

/** The lines of a trajectory file; a torn last line (a crash mid-write) is dropped and reported. */
export async function readTrajectory(path: string): Promise<{ lines: TrajectoryLine[]; tornLastLine: boolean }> {
  const text = await readFile(path, "utf8");
  const raw = text.split("\n");
  const last = raw.pop() ?? "";
  const lines = raw.filter((l) => l !== "").map((l) => JSON.parse(l) as TrajectoryLine);
  return { lines, tornLastLine: last !== "" };
}
