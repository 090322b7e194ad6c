/**
 * The Docker Engine API over its unix socket, for the one call the harness
 * makes per participant command (an exec): it saves the `docker` CLI's
 * process start and its own API round trips (the CLI is a Go binary that
 * pings the engine, negotiates a version, then makes the same calls).
 * Everything else (create, cp, start, rm) stays on the CLI (docker-cli.ts).
 *
 * Used only when DOCKER_HOST names a unix socket and no other CLI is asked
 * for (`A2A_BENCH_DOCKER_CLI`): Docker and Podman both serve this API there.
 * Paths carry no API version: the engine answers in its own (exec
 * create/start/inspect have not changed since API 1.24, and engines from
 * Docker 29 refuse versions older than 1.44).
 */
import { request, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/** Bytes of an engine answer read at most (JSON of an exec inspect is ~1 KB; an error message less). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The engine's unix socket from the environment, or null when the CLI must be used. */
export function engineSocketPath(env: NodeJS.ProcessEnv): string | null {
  const cli = env["A2A_BENCH_DOCKER_CLI"];
  if (cli && cli !== "docker") return null;
  const host = env["DOCKER_HOST"];
  if (!host?.startsWith("unix://")) return null;
  const path = host.slice("unix://".length);
  return path.startsWith("/") ? path : null;
}

/** The engine could not be reached or did not speak HTTP (not an error answer: see {@link EngineAnswer}). */
export class EngineUnreachableError extends Error {
  readonly code = "E_ENGINE_UNREACHABLE";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EngineUnreachableError";
  }
}

/** An answer of the engine: its status and body (JSON when it was JSON, else the text). */
export interface EngineAnswer {
  status: number;
  body: unknown;
  /** The engine's message of an error answer (`{"message": ...}`), else the body's text. */
  message: string;
}

function readAnswer(res: IncomingMessage): Promise<EngineAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_ANSWER_BYTES) chunks.push(c);
    });
    res.on("error", reject);
    res.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = text === "" ? null : JSON.parse(text);
      } catch {
        // not JSON: the text stands
      }
      const m = (body as { message?: unknown } | null)?.message;
      resolve({ status: res.statusCode ?? 0, body, message: typeof m === "string" ? m : text.trim() });
    });
  });
}

/**
 * One request with a JSON body (or none); resolves with the engine's answer whatever its status,
 * rejects with EngineUnreachableError when the socket fails or `timeoutMs` passes.
 */
export function engineRequest(
  socketPath: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  timeoutMs = 30_000,
): Promise<EngineAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({
      socketPath,
      method,
      path,
      headers:
        payload === undefined
          ? {}
          : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
      timeout: timeoutMs,
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", (err) =>
      reject(new EngineUnreachableError(`the engine at unix://${socketPath}: ${err.message}`, { cause: err })),
    );
    req.on("response", (res) => {
      readAnswer(res).then(resolve, (err: Error) =>
        reject(new EngineUnreachableError(`the engine at unix://${socketPath}: ${err.message}`, { cause: err })),
      );
    });
    req.end(payload);
  });
}

/**
 * A request answered by a hijacked stream (exec start): resolves with the raw socket once the engine
 * switched protocols (101), or with its error answer; rejects with EngineUnreachableError.
 */
export function engineUpgrade(
  socketPath: string,
  path: string,
  body: unknown,
): Promise<{ socket: Socket; head: Buffer } | EngineAnswer> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request({
      socketPath,
      method: "POST",
      path,
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(payload),
        connection: "Upgrade",
        upgrade: "tcp",
      },
    });
    req.on("error", (err) =>
      reject(new EngineUnreachableError(`the engine at unix://${socketPath}: ${err.message}`, { cause: err })),
    );
    req.on("upgrade", (_res, socket, head) => resolve({ socket, head }));
    // No upgrade: an error answer (404 no such exec, 409 container not running), read as such.
    req.on("response", (res) => {
      readAnswer(res).then(resolve, (err: Error) =>
        reject(new EngineUnreachableError(`the engine at unix://${socketPath}: ${err.message}`, { cause: err })),
      );
    });
    req.end(payload);
  });
}
