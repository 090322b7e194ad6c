/**
 * The trajectory of one episode: a JSON Lines file, one line per event
 * (`episode_start`, one `turn` per participant reply, `episode_end`),
 * appended as the episode goes so a crash leaves every turn so far.
 *
 * Each line is written by ONE `write` on a file opened for appending and
 * flushed to disk (`datasync`) before the next, so a reader sees whole lines
 * only, except at worst a torn LAST line after a crash, which
 * {@link readTrajectory} reports and drops.
 *
 * What it keeps, for an auditor: each turn's reply as it came over the wire
 * (`wire`: the HTTP body as received, decoded of its content-encoding, with
 * its content type, byte count and sha256) beside the decoded action, and of
 * each command what the participant was sent (its streams cut as they were
 * sent, truncate.ts) with the whole output's bytes and sha256.
 *
 * The file is bounded ({@link trajectoryFile}'s `maxBytes`, the config's
 * `max_trajectory_bytes`): each line gets at most {@link MAX_LINE_BYTES} (or a
 * quarter of the total) and what the total has left, room kept for one short
 * line per turn still allowed; a line over its room has its long texts cut
 * with counts and hashes of what was cut (trajectory-budget.ts).
 */
import { createHash } from "node:crypto";
import { open, readFile, mkdir, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { truncateStream } from "./truncate.js";
import { DEFAULT_MAX_TRAJECTORY_BYTES, LINE_RESERVE_BYTES, MAX_LINE_BYTES, fitLine } from "./trajectory-budget.js";
import type { WireReply } from "../a2a/client/wire-capture.js";
import type { Action } from "./decode.js";
import type { AssessorMessage } from "./protocol.js";
import type { EpisodeLimits } from "./limits.js";
import type { InstanceFacts } from "./protocol.js";
import type { EpisodeRecord } from "./episode-record.js";

/** Characters kept of one text we send (a message's JSON) before the line's own bound: 1 MiB worth. */
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

/** A reply body as it came over the wire (wire-capture.ts). */
export interface WireRecord {
  http_status: number;
  /** The `Content-Type` as sent. */
  content_type: string;
  /** The `Content-Encoding` as sent, when one was (the body below is decoded of it). */
  content_encoding?: string;
  /** Bytes of the body (decoded), and their sha256 (hex). */
  bytes: number;
  sha256: string;
  /** False when the read stopped early (the reply cap, the depth limit, an abort): `bytes` is what was read. */
  complete: boolean;
  /** How `body` holds the bytes: as text when they are UTF-8, else base64. */
  body_encoding: "utf-8" | "base64";
  body: string;
}

/** The record of a body read. */
export function wireRecord(reply: WireReply): WireRecord {
  let body: string;
  let encoding: WireRecord["body_encoding"] = "utf-8";
  try {
    body = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(reply.body);
  } catch {
    body = reply.body.toString("base64");
    encoding = "base64";
  }
  return {
    http_status: reply.status,
    content_type: reply.contentType,
    ...(reply.contentEncoding !== "" ? { content_encoding: reply.contentEncoding } : {}),
    bytes: reply.body.length,
    sha256: reply.sha256,
    complete: reply.complete,
    body_encoding: encoding,
    body,
  };
}

/** A command's stream as recorded: what the participant was sent, and the whole stream's size and hash. */
export interface RecordedStream {
  /** The stream cut as the participant is sent it (truncate.ts). */
  text: string;
  /** Characters the cut removed (0: whole). */
  elided_chars: number;
  /** UTF-8 bytes of the whole stream and their sha256 (hex). */
  bytes: number;
  sha256: string;
}

/** `text` (a command's whole stream) as recorded. */
export function recordedStream(text: string): RecordedStream {
  const cut = truncateStream(text);
  return {
    text: cut.text,
    elided_chars: cut.elidedChars,
    bytes: Buffer.byteLength(text),
    sha256: createHash("sha256").update(text).digest("hex"),
  };
}

/** One participant turn: what was sent, what came back, what it meant, what ran. */
export interface TurnLine {
  type: "turn";
  turn: number;
  sent_at: string;
  replied_at: string | null;
  /** The message sent: its A2A ids and its text. */
  sent: { message_id: string; context_id: string; task_id: string; text: string };
  /** The reply as decoded by the SDK: its ids and state; absent when none came. */
  reply?: { state: string; context_id: string; task_id: string; message_id: string };
  /** The reply's HTTP body as received, when one was read (a failed or refused reply's too). */
  wire?: WireRecord;
  /** The decoded action (absent when no reply came). */
  action?: Action;
  /** The command's outcome, when one ran: each stream as the participant is sent it, with the whole one's size and hash. */
  command?: {
    exit_code: number | null;
    timed_out: boolean;
    duration_ms: number;
    stdout: RecordedStream;
    stderr: RecordedStream;
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

/**
 * A sink appending to `path` (created with its directory; an existing file is appended to, its bytes
 * counted), the file bounded at `maxBytes` (see the module note): the `episode_start` line's
 * `limits.maxTurns` says how many lines may follow, each of which keeps {@link LINE_RESERVE_BYTES}.
 */
export function trajectoryFile(path: string, maxBytes: number = DEFAULT_MAX_TRAJECTORY_BYTES): TrajectorySink {
  let handle: Promise<FileHandle> | undefined;
  let queue: Promise<void> = Promise.resolve();
  let written = 0;
  let linesLeft = 0;
  const perLine = Math.min(MAX_LINE_BYTES, Math.floor(maxBytes / 4));
  const opened = (): Promise<FileHandle> =>
    (handle ??= mkdir(dirname(path), { recursive: true }).then(async () => {
      const h = await open(path, "a", 0o644);
      written = (await h.stat()).size;
      return h;
    }));
  return {
    write(line) {
      const next = queue.then(async () => {
        const h = await opened();
        if (line.type === "episode_start") linesLeft = line.limits.maxTurns + 1;
        else linesLeft = line.type === "episode_end" ? 0 : Math.max(1, linesLeft - 1);
        const room = Math.min(perLine, maxBytes - written - linesLeft * LINE_RESERVE_BYTES) - 1;
        const text = `${fitLine(line, room)}\n`;
        await h.write(text);
        written += Buffer.byteLength(text);
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
