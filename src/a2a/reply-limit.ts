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
 * Why `redirect: "error"`: the participant is contacted at the URL it was
 * given, exactly; a 307/308 would otherwise re-POST the task anywhere the
 * participant points (SSRF against loopback services).
 */
import { BenchError } from "../util/errors.js";

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

/** The first {@link ReplyTooLargeError} in `err`'s cause chain (the SDK wraps what a body read threw). */
export function findReplyTooLarge(err: unknown): ReplyTooLargeError | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e && typeof e === "object"; depth++) {
    if (e instanceof ReplyTooLargeError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
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

/** `body` counted as it is read: errors (and cancels the source) once more than `maxBytes` went through. */
function countedBody(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let seen = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      seen += value.byteLength;
      if (seen > maxBytes) {
        const err = new ReplyTooLargeError(maxBytes, seen);
        controller.error(err);
        await reader.cancel(err).catch(() => {});
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** A `fetch` whose response bodies are capped at `maxBytes` and which refuses redirects (see the module note). */
export function boundedFetch(maxBytes: number, baseFetch: typeof fetch = fetch): typeof fetch {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await baseFetch(input, { ...init, redirect: "error" });
    const declared = Number(res.headers.get("content-length") ?? "NaN");
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel().catch(() => {});
      throw new ReplyTooLargeError(maxBytes, declared);
    }
    if (!res.body) return res;
    return new Response(countedBody(res.body, maxBytes), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
