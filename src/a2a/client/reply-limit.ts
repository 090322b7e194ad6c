/**
 * A `fetch` for the SDK's transports that never holds more than a set number
 * of bytes of one participant reply, and never follows a redirect.
 *
 * Why at the HTTP layer: the SDK reads a JSON-RPC reply with `response.json()`
 * and an SSE stream event by event; without a bound, a participant answering
 * hundreds of MB per item drove the runner to gigabytes of memory and its
 * sandbox calls to fail (rows blamed on our sandbox for what the participant
 * did). Here the body is counted as it streams in: a declared
 * `Content-Length` above the cap is refused before reading, and a body that
 * passes the cap while streaming (JSON or `text/event-stream`, chunked or not)
 * errors the read and cancels the connection, so at most about the cap plus
 * one network chunk is ever buffered. The error, {@link ReplyTooLargeError},
 * is the participant's failure, named as such.
 *
 * The count is of the bytes the body DECODES to: fetch undoes any
 * `Content-Encoding` (gzip, deflate, br, several in a row) before the reader
 * sees a byte, so a compressed bomb (65 KB on the wire, 64 MiB decoded) stops
 * at the cap like any other flood. The agent card is read through the same
 * reader (card-fetch.ts).
 *
 * The nesting of the JSON is bounded as well ({@link MAX_REPLY_DEPTH}): the
 * reader tracks how deep `[` and `{` go outside strings, and a body nested
 * deeper is refused there ({@link ReplyTooDeepError}, the participant's
 * failure), before any parser or serialiser of ours or the SDK's recurses
 * into it (300,000 levels overflowed the stack).
 *
 * Why `redirect: "error"`: the participant is contacted at the URL it was
 * given, exactly; a 307/308 would otherwise re-POST the task anywhere the
 * participant points (SSRF against loopback services).
 *
 * While a recording is open (wire-capture.ts) the bytes passed on are kept for
 * the episode's trajectory.
 */
import { BenchError } from "../../util/errors.js";
import { wireTap, type WireTap } from "./wire-capture.js";

/** Default cap of one participant reply, bytes (4 MiB: an answer is code, a patch or a verdict — kilobytes). */
export const DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024;
/**
 * Bounds of the cap (the config key's schema bounds too). Why 32 MiB at most: a reply is held
 * several times over while parsed (bytes, text, JSON), once per question in flight
 * (`participant_concurrency`); measured here, 200 MB replies took the runner to 2.7 GB.
 */
export const MIN_MAX_REPLY_BYTES = 1024;
export const MAX_MAX_REPLY_BYTES = 32 * 1024 * 1024;
/** Env var setting the cap when the run's config (`max_participant_reply_bytes`, `--max-participant-reply-bytes`) does not. */
export const MAX_REPLY_ENV = "A2A_BENCH_MAX_PARTICIPANT_REPLY_BYTES";

/** A participant reply larger than the cap (its failure: see participant-failure.ts). */
export class ReplyTooLargeError extends BenchError {
  constructor(
    readonly maxBytes: number,
    /** Bytes read (or declared by Content-Length) when the reply was refused. */
    readonly bytesSeen: number,
  ) {
    super("E_PARTICIPANT_REPLY_TOO_LARGE", `participant reply exceeded ${maxBytes} bytes`);
  }
}

/**
 * Deepest nesting of `[` / `{` accepted in a reply (or a card). A2A's own shapes go about ten deep; what
 * a participant puts in a DataPart gets the rest. Recursive code (JSON.stringify, the SDK's converters)
 * handles this depth with room to spare.
 */
export const MAX_REPLY_DEPTH = 256;

/** A participant reply nested deeper than {@link MAX_REPLY_DEPTH} (its failure: see participant-failure.ts). */
export class ReplyTooDeepError extends BenchError {
  constructor(readonly maxDepth: number) {
    super("E_PARTICIPANT_REPLY_TOO_DEEP", `participant reply nested deeper than ${maxDepth} levels`);
  }
}

/** A reply the capped reader refused. */
export type ReplyLimitError = ReplyTooLargeError | ReplyTooDeepError;

/** The first reply the capped reader refused in `err`'s cause chain (the SDK wraps what a body read threw). */
export function findReplyLimitError(err: unknown): ReplyLimitError | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e && typeof e === "object"; depth++) {
    if (e instanceof ReplyTooLargeError || e instanceof ReplyTooDeepError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The first {@link ReplyTooLargeError} in `err`'s cause chain. */
export function findReplyTooLarge(err: unknown): ReplyTooLargeError | undefined {
  const found = findReplyLimitError(err);
  return found instanceof ReplyTooLargeError ? found : undefined;
}

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;

/**
 * The nesting depth of JSON read a chunk at a time, outside strings. A raw newline ends any string (JSON
 * escapes newlines inside strings), so SSE framing (`data:` lines) cannot hide brackets for longer than its
 * line; a close never takes the depth below 0. For any JSON value the depth seen is at least its nesting.
 */
export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Deepest level seen so far. */
  max = 0;

  feed(chunk: Uint8Array): number {
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (c === NEWLINE) {
        this.inString = false;
        this.escaped = false;
      } else if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
        if (++this.depth > this.max) this.max = this.depth;
      } else if ((c === CLOSE_BRACKET || c === CLOSE_BRACE) && this.depth > 0) this.depth--;
    }
    return this.max;
  }
}

/**
 * The reply cap of a run: `configured` (the config key) if given, else the env var, else
 * {@link DEFAULT_MAX_REPLY_BYTES}. Throws E_SETTING for an env value that is not a positive integer.
 */
export function maxReplyBytes(configured: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (configured !== undefined) return configured;
  const raw = env[MAX_REPLY_ENV];
  if (raw === undefined || raw === "") return DEFAULT_MAX_REPLY_BYTES;
  const v = Number(raw);
  if (!/^\d+$/.test(raw) || v < MIN_MAX_REPLY_BYTES || v > MAX_MAX_REPLY_BYTES) {
    throw new BenchError(
      "E_SETTING",
      `${MAX_REPLY_ENV} must be an integer number of bytes from ${MIN_MAX_REPLY_BYTES} to ${MAX_MAX_REPLY_BYTES}, got "${raw}"`,
    );
  }
  return v;
}

/**
 * `body` counted as it is read: errors (and cancels the source) once more than `maxBytes` went through or
 * the JSON in it nests deeper than `maxDepth`; what passes goes to `tap` too.
 */
function countedBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  maxDepth: number,
  tap: WireTap | undefined,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const depth = new JsonDepthScanner();
  let seen = 0;
  const refuse = async (controller: ReadableStreamDefaultController<Uint8Array>, err: Error): Promise<void> => {
    tap?.end(false);
    controller.error(err);
    await reader.cancel(err).catch(() => {});
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        tap?.end(false);
        throw err;
      }
      if (chunk.done) {
        tap?.end(true);
        return controller.close();
      }
      const value = chunk.value;
      seen += value.byteLength;
      if (seen > maxBytes) return refuse(controller, new ReplyTooLargeError(maxBytes, seen));
      tap?.add(value);
      if (depth.feed(value) > maxDepth) return refuse(controller, new ReplyTooDeepError(maxDepth));
      controller.enqueue(value);
    },
    cancel(reason) {
      tap?.end(false);
      return reader.cancel(reason);
    },
  });
}

/**
 * A `fetch` whose response bodies are capped at `maxBytes` (decoded) and `maxDepth` levels of JSON
 * nesting, and which refuses redirects (see the module note).
 */
export function boundedFetch(
  maxBytes: number,
  baseFetch: typeof fetch = fetch,
  maxDepth: number = MAX_REPLY_DEPTH,
): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await baseFetch(input, { ...init, redirect: "error" });
    const declared = Number(res.headers.get("content-length") ?? "NaN");
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel().catch(() => {});
      throw new ReplyTooLargeError(maxBytes, declared);
    }
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const tap = wireTap(method, res);
    if (!res.body) {
      tap?.end(true);
      return res;
    }
    return new Response(countedBody(res.body, maxBytes, maxDepth, tap), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
