/**
 * The JSON-RPC endpoint's body reader for the common case: a plain
 * `application/json` (UTF-8, not compressed) body. It reads the stream once,
 * enforces the byte limit and parses once, with the answers body-parser's
 * `express.json` gives (an empty body reads as `{}`, strict: only an object or
 * an array, a leading BOM dropped, a size over the limit or a length that does
 * not match Content-Length is an error of body-parser's `type`), without
 * body-parser's per-request machinery (type-is, content-type parsing, the
 * iconv decoder, on-finished): together a visible share of a small request's
 * cost (docs/performance-serving.md). Anything else — another media type or
 * charset, a `Content-Encoding`, no body — goes to body-parser unchanged.
 * Transport only: no protocol logic here.
 */
import type { IncomingMessage } from "node:http";

/** An error shaped as body-parser's (its `type` and HTTP `status`), for the same error mapping. */
export class BodyReadError extends Error {
  constructor(
    message: string,
    readonly type: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "BodyReadError";
  }
}

/** Whether this request is the plain case {@link readJsonBody} handles (else: body-parser). */
export function isPlainJsonBody(req: IncomingMessage): boolean {
  const ct = req.headers["content-type"];
  if (ct === undefined) return false;
  const lower = ct.toLowerCase();
  if (
    lower !== "application/json" &&
    lower !== "application/json; charset=utf-8" &&
    lower !== "application/json;charset=utf-8"
  )
    return false;
  const enc = req.headers["content-encoding"];
  if (enc !== undefined && enc.toLowerCase() !== "identity") return false;
  // type-is hasBody: a body is announced by Transfer-Encoding or a Content-Length.
  return req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0";
}

/** Read and parse the body (see the module note); rejects with a {@link BodyReadError} or the SyntaxError. */
export function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = req.headers["content-length"];
    const expected = declared === undefined ? undefined : Number(declared);
    if (expected !== undefined && expected > limitBytes) {
      req.pause();
      reject(new BodyReadError("request entity too large", "entity.too.large", 413));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = (): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limitBytes) {
        cleanup();
        req.pause();
        reject(new BodyReadError("request entity too large", "entity.too.large", 413));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      if (expected !== undefined && received !== expected) {
        reject(new BodyReadError("request size did not match content length", "request.size.invalid", 400));
        return;
      }
      let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)).toString("utf8");
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      try {
        resolve(parseStrict(text));
      } catch (err) {
        reject(err instanceof Error ? err : new SyntaxError(String(err)));
      }
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    const onAborted = (): void => {
      cleanup();
      reject(new BodyReadError("request aborted", "request.aborted", 400));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onAborted);
  });
}

/** body-parser's strict JSON: `{}` for an empty body, else an object or array, else a SyntaxError. */
export function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first !== "{" && first !== "[") throw new SyntaxError(`Unexpected token ${first ?? "end"} in JSON at position 0`);
  return JSON.parse(text) as unknown;
}
