/**
 * Runs the `docker` CLI (Docker's, or Podman's docker-compatible one) against
 * the engine at DOCKER_HOST and returns one flat record per call.
 *
 * Why the CLI and not `dockerode`: both speak the Engine API to the same
 * socket, so Docker and Podman serve either. Measured on the team engine
 * (2 cores, dockerd 20.10): one Engine API round trip from Node costs ~10 ms,
 * one `docker` CLI call ~38 ms; but a job costs one `docker exec` (155 ms
 * for a HumanEval-sized python job, mostly runc and python start-up) or one
 * container (454 ms; BENCHMARKS.md row 9c), so the CLI's ~28 ms per call is
 * a small share. dockerode 5 would add grpc-js,
 * protobufjs and ssh2 (whose install script compiles a native binding) to
 * the dependency tree. The CLI's one trap — killing a `docker exec` client
 * does not stop the process it started — is handled where it matters:
 * jobs are stopped by killing their uid inside the container, or the
 * container itself (see docker-sandbox.ts). The exception is an
 * environment's command (engine-api.ts, api-exec.ts): an episode runs
 * many small ones, where the CLI's start is most of the harness's own cost,
 * so those three calls go straight to the socket (no dependency added).
 */
import { runCommand } from "../../process/index.js";

/**
 * Limit of one CLI call, ms, unless the caller names its own: every call here is an engine round trip
 * (create, cp, rm, inspect, kill) or a build of a small image; ten minutes means the engine is stuck.
 */
export const DOCKER_CLI_TIMEOUT_MS = 600_000;

/** Flat outcome of one CLI call (a projection of the process layer's record). */
export interface CliOutcome {
  exitCode: number | null;
  signal: string | null;
  /** Spawn failure (e.g. no `docker` binary), if any. */
  spawnError: string | null;
  stdout: string;
  stderr: string;
  /** Bytes the CLI wrote to stdout, kept or not (more than `stdout` holds when it was cut to its tail). */
  stdoutBytes: number;
  timedOut: boolean;
  durationMs: number;
  /** The engine the CLI was pointed at ({@link engineName}): errors name it. */
  engine: string;
}

export interface CliOptions {
  /** Environment; DOCKER_HOST is taken from it. Default process.env. */
  env?: NodeJS.ProcessEnv;
  stdin?: string;
  /** Bytes kept of each stream (the tail; default 1 MiB). */
  maxOutputBytes?: number;
  /** Past maxOutputBytes: "tail" (default) keeps the last bytes and lets the CLI run; "stop" kills it. */
  overflow?: "tail" | "stop";
  /** Default {@link DOCKER_CLI_TIMEOUT_MS}. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The binary: `$A2A_BENCH_DOCKER_CLI` (e.g. `podman`), else `docker`. */
export function dockerBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env["A2A_BENCH_DOCKER_CLI"] || "docker";
}

/**
 * Which engine a CLI with environment `env` talks to, for messages: DOCKER_HOST (or Podman's CONTAINER_HOST)
 * when set, else the docker context DOCKER_CONTEXT names, else the CLI's default.
 */
export function engineName(env: NodeJS.ProcessEnv = process.env): string {
  const host = env["DOCKER_HOST"] || env["CONTAINER_HOST"];
  if (host) return host;
  const context = env["DOCKER_CONTEXT"];
  if (context) return `docker context ${context}`;
  return "the docker CLI's default engine (DOCKER_HOST unset)";
}

/**
 * Run `docker <args>` to completion on the process layer. Never rejects. A timeout or an abort kills
 * the client at once (not what it started in the engine).
 */
export async function docker(args: readonly string[], opts: CliOptions = {}): Promise<CliOutcome> {
  const o = await runCommand(dockerBinary(opts.env), args, {
    timeoutMs: opts.timeoutMs ?? DOCKER_CLI_TIMEOUT_MS,
    env: opts.env ?? process.env,
    input: opts.stdin ?? "",
    maxOutputBytes: opts.maxOutputBytes ?? 1024 * 1024,
    overflow: opts.overflow ?? "tail",
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return {
    exitCode: o.exitCode,
    signal: o.signal,
    spawnError: o.spawnError,
    stdout: o.stdout,
    stderr: o.stderr,
    stdoutBytes: o.stdoutBytes,
    timedOut: o.timedOut,
    durationMs: o.durationMs,
    engine: engineName(opts.env ?? process.env),
  };
}

/** One line saying why a CLI call failed (for infraError / error messages). */
export function cliFailure(what: string, r: CliOutcome): string {
  if (r.spawnError) return `${what}: cannot run the docker CLI: ${r.spawnError}`;
  if (r.timedOut) return `${what} on engine ${r.engine}: the docker CLI did not answer within its limit`;
  return `${what} on engine ${r.engine}: docker exited ${r.exitCode ?? r.signal}: ${r.stderr.trim().slice(-500) || r.stdout.trim().slice(-500)}`;
}
