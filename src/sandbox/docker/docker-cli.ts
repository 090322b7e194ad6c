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
 * container itself (see docker-sandbox.ts).
 */
import { runChild, startChild, type ChildHandle } from "../../process/index.js";

/** Flat outcome of one CLI call. */
export interface CliOutcome {
  exitCode: number | null;
  signal: string | null;
  /** Spawn failure (e.g. no `docker` binary), if any. */
  spawnError: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface CliOptions {
  /** Environment; DOCKER_HOST is taken from it. Default process.env. */
  env?: NodeJS.ProcessEnv;
  stdin?: string;
  /** Bytes kept of each stream (default 1 MiB). */
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

/** The binary: `$A2A_BENCH_DOCKER_CLI` (e.g. `podman`), else `docker`. */
export function dockerBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env["A2A_BENCH_DOCKER_CLI"] || "docker";
}

/**
 * Run `docker <args>` to completion on the process layer. Never rejects. An abort kills the client at
 * once (not what it started in the engine).
 */
export async function docker(args: readonly string[], opts: CliOptions = {}): Promise<CliOutcome> {
  const cap = opts.maxOutputBytes ?? 1024 * 1024;
  const o = await runChild({
    file: dockerBinary(opts.env),
    args,
    env: opts.env ?? process.env,
    stdin: { input: opts.stdin ?? "" },
    stdout: { tail: cap },
    stderr: { tail: cap },
    graceMs: 0,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return {
    exitCode: o.exitCode,
    signal: o.signal,
    spawnError: o.spawnError,
    stdout: o.stdout,
    stderr: o.stderr,
    durationMs: o.durationMs,
  };
}

/**
 * Start a docker client whose pipes the caller reads itself (`handle.child.stdout`/`stderr`): a job's
 * `docker exec`, an environment's command, a keepalive client. `stdin`: the input to write and close,
 * or `lifeline` (a pipe the caller ends). `handle.done` resolves once the client has exited and its
 * pipes are closed, so everything it wrote has been read; the client leads its own process group and
 * is killed if this process exits first. Stopping what the client started in the engine is the
 * caller's business (killing an exec client does not stop its process).
 */
export function startDocker(
  args: readonly string[],
  opts: { env: NodeJS.ProcessEnv; stdin: "lifeline" | { input: string } | "ignore" },
): ChildHandle {
  return startChild({
    file: dockerBinary(opts.env),
    args,
    env: opts.env,
    stdin: opts.stdin,
    stdout: "pipe",
    stderr: "pipe",
    leftovers: "keep",
  });
}

/** One line saying why a CLI call failed (for infraError / error messages). */
export function cliFailure(what: string, r: CliOutcome): string {
  if (r.spawnError) return `${what}: cannot run the docker CLI: ${r.spawnError}`;
  return `${what}: docker exited ${r.exitCode ?? r.signal}: ${r.stderr.trim().slice(-500) || r.stdout.trim().slice(-500)}`;
}
