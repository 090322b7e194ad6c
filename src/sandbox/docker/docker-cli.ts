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
import { spawn, type ChildProcess } from "node:child_process";
import { OutputTail } from "../../process/output-tail.js";

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
  stdin?: string | Buffer;
  /** Bytes kept of each stream (default 1 MiB). */
  maxOutputBytes?: number;
  signal?: AbortSignal;
}

/** The binary: `$A2A_BENCH_DOCKER_CLI` (e.g. `podman`), else `docker`. */
export function dockerBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env["A2A_BENCH_DOCKER_CLI"] || "docker";
}

/** Run `docker <args>` to completion. Never rejects. An abort kills the client (not what it started). */
export function docker(args: readonly string[], opts: CliOptions = {}): Promise<CliOutcome> {
  const started = performance.now();
  const cap = opts.maxOutputBytes ?? 1024 * 1024;
  return new Promise((resolve) => {
    const out = new OutputTail(cap);
    const err = new OutputTail(cap);
    let child: ChildProcess;
    try {
      child = spawn(dockerBinary(opts.env), args, { env: opts.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    } catch (e) {
      resolve({
        exitCode: null,
        signal: null,
        spawnError: (e as Error).message,
        stdout: "",
        stderr: "",
        durationMs: 0,
      });
      return;
    }
    let spawnError: string | null = null;
    child.on("error", (e) => {
      spawnError = e.message;
    });
    child.stdout!.on("data", (c: Buffer) => out.push(c));
    child.stderr!.on("data", (c: Buffer) => err.push(c));
    child.stdin!.on("error", () => {
      /* the client exited before reading its input */
    });
    child.stdin!.end(opts.stdin ?? "");
    const onAbort = (): void => {
      child.kill("SIGKILL");
    };
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("close", (code, signal) => {
      opts.signal?.removeEventListener("abort", onAbort);
      resolve({
        exitCode: code,
        signal,
        spawnError,
        stdout: out.text(),
        stderr: err.text(),
        durationMs: performance.now() - started,
      });
    });
  });
}

/** One line saying why a CLI call failed (for infraError / error messages). */
export function cliFailure(what: string, r: CliOutcome): string {
  if (r.spawnError) return `${what}: cannot run the docker CLI: ${r.spawnError}`;
  return `${what}: docker exited ${r.exitCode ?? r.signal}: ${r.stderr.trim().slice(-500) || r.stdout.trim().slice(-500)}`;
}
