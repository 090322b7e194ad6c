/**
 * One SWE-bench instance's container: create it from the instance's image
 * (no network, all capabilities dropped, cgroup caps from SandboxLimits),
 * copy the scripts and the patches in (`docker cp` of a host directory,
 * before start: never on a command line), start it tied to this process
 * (keepalive.ts), then run each step as its own `docker exec` (the apply and test-patch
 * script, file reads, the test script), and remove it. Each step's output
 * and exit status are read by the harness on its own, so the test step's
 * output can never pass for a harness step's. Timeout and cancellation kill
 * the container itself (the exec client's death would not stop the tests).
 * Root inside: the official images own /testbed and the conda env as root,
 * and tests write there; the capabilities are dropped, so root cannot do
 * more than the owner of those files.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { SandboxLimits } from "../../../sandbox/types.js";
import { TMPFS_BYTES } from "../../../sandbox/limits.js";
import { OutputTail } from "../../../process/output-tail.js";
import { KeepaliveContainer } from "../../../sandbox/docker/keepalive.js";
import { docker, dockerBinary } from "../../../sandbox/docker/docker-cli.js";
import { PATCH_DIR } from "./eval-script.js";

/** Bytes of a step's output kept (the test output of a large suite runs to megabytes). */
export const MAX_EVAL_LOG_BYTES = 16 * 1024 * 1024;
/** Processes beyond the per-program limit (conda activation, git, the exec shim). */
const PIDS_SLACK = 32;

export interface EvalContainerInput {
  image: string;
  /** Files copied into PATCH_DIR (name → content): scripts and patches. */
  files: Readonly<Record<string, string>>;
  limits: SandboxLimits;
  /** Owner name for the container label. */
  owner: string;
  /** Environment of the docker CLI. */
  env: NodeJS.ProcessEnv;
}

/** Flat outcome of one `docker exec` step. */
export interface StepOutcome {
  /** stdout and stderr, in arrival order (the scripts merge stderr into stdout). */
  output: string;
  exitCode: number | null;
  timedOut: boolean;
  isCanceled: boolean;
  /** The docker CLI could not be run. */
  spawnError?: string;
  durationMs: number;
}

/** A started instance container. */
export interface EvalContainer {
  /** Run `argv` in the container; on timeout or abort the container is killed (no later step runs). */
  exec(argv: readonly string[], timeoutMs: number, signal?: AbortSignal): Promise<StepOutcome>;
  remove(): Promise<void>;
}

/** Create and start an instance's container with `files` in PATCH_DIR. Throws (the engine's message) when it cannot. */
export async function openEvalContainer(input: EvalContainerInput): Promise<EvalContainer> {
  const staging = await mkdtemp(join(tmpdir(), "a2a-swe-ctr-"));
  try {
    for (const [name, text] of Object.entries(input.files)) await writeFile(join(staging, name), text);
    const name = `a2a-bench-swe-${process.pid}-${randomBytes(6).toString("hex")}`;
    const c = await KeepaliveContainer.start(
      {
        image: input.image,
        owner: input.owner,
        readOnlyRoot: false,
        tmpfs: [`/tmp:rw,nosuid,nodev,size=${TMPFS_BYTES},mode=1777`],
        memoryBytes: input.limits.memoryBytes,
        pids: input.limits.maxProcesses + PIDS_SLACK,
        cpus: 1,
        copyIn: { hostDir: staging, target: PATCH_DIR },
      },
      name,
      input.env,
    );
    return {
      exec: (argv, timeoutMs, signal) => execStep(c, argv, timeoutMs, input.env, signal),
      remove: () => c.remove(),
    };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function execStep(
  c: KeepaliveContainer,
  argv: readonly string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<StepOutcome> {
  const t0 = performance.now();
  if (signal?.aborted)
    return Promise.resolve({ output: "", exitCode: null, timedOut: false, isCanceled: true, durationMs: 0 });
  return new Promise((resolve) => {
    const child = spawn(dockerBinary(env), ["exec", c.id, ...argv], { env, stdio: ["ignore", "pipe", "pipe"] });
    const out = new OutputTail(MAX_EVAL_LOG_BYTES);
    let reason: "timeout" | "canceled" | null = null;
    let spawnError: string | null = null;
    const stop = (why: "timeout" | "canceled"): void => {
      reason ??= why;
      // The step runs in the container, not in the client: kill the container.
      void docker(["kill", c.id], { env }).finally(() => child.kill("SIGKILL"));
    };
    const timer = setTimeout(() => stop("timeout"), timeoutMs);
    timer.unref();
    const onAbort = (): void => stop("canceled");
    signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (e) => {
      spawnError = e.message;
    });
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => out.push(b));
    child.on("close", (code) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve({
        output: out.text(),
        exitCode: reason ? null : code,
        timedOut: reason === "timeout",
        isCanceled: reason === "canceled",
        ...(spawnError ? { spawnError } : {}),
        durationMs: performance.now() - t0,
      });
    });
  });
}
