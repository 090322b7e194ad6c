/**
 * Runs one SWE-bench instance's evaluation in a fresh container of its image:
 * create (no network, all capabilities dropped, cgroup caps from
 * SandboxLimits), copy the eval script and the patches in (`docker cp` of a
 * host directory, before start: never on a command line), start tied to this
 * process (keepalive.ts), `docker exec` the script, remove the container.
 * Timeout and cancellation kill the container itself (the exec client's death
 * would not stop the tests). Root inside: the official images own /testbed
 * and the conda env as root, and tests write there; the capabilities are
 * dropped, so root cannot do more than the owner of those files.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { SandboxLimits } from "../../../sandbox/types.js";
import { TMPFS_BYTES } from "../../../sandbox/limits.js";
import { OutputTail } from "../../../sandbox/local/output-tail.js";
import { KeepaliveContainer } from "../../../sandbox/docker/keepalive.js";
import { docker, dockerBinary } from "../../../sandbox/docker/docker-cli.js";
import { PATCH_DIR } from "./eval-script.js";

/** Bytes of eval log kept (the test output of a large suite runs to megabytes). */
export const MAX_EVAL_LOG_BYTES = 16 * 1024 * 1024;
/** Processes beyond the per-program limit (conda activation, git, the exec shim). */
const PIDS_SLACK = 32;

export interface ContainerRunInput {
  image: string;
  /** eval.sh text (eval-script.ts). */
  script: string;
  modelPatch: string;
  testPatch: string;
  /** Wall-clock limit of the script (apply + tests), ms. */
  timeoutMs: number;
  limits: SandboxLimits;
  /** Owner name for the container label. */
  owner: string;
  /** Environment of the docker CLI. */
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** Flat outcome of one container run; times in ms per phase. */
export interface ContainerRunOutcome {
  log: string;
  exitCode: number | null;
  timedOut: boolean;
  isCanceled: boolean;
  /** The container could not be created/started, or the exec failed to run. */
  infraError?: string;
  startMs: number;
  execMs: number;
  teardownMs: number;
}

function withNewline(s: string): string {
  return s.endsWith("\n") ? s : s + "\n";
}

export async function runInContainer(input: ContainerRunInput): Promise<ContainerRunOutcome> {
  const none = { log: "", exitCode: null, timedOut: false, isCanceled: false, startMs: 0, execMs: 0, teardownMs: 0 };
  if (input.signal?.aborted) return { ...none, isCanceled: true };
  const staging = await mkdtemp(join(tmpdir(), "a2a-swe-ctr-"));
  let container: KeepaliveContainer | null = null;
  const t0 = performance.now();
  try {
    await writeFile(join(staging, "eval.sh"), input.script);
    await writeFile(join(staging, "model.patch"), withNewline(input.modelPatch));
    await writeFile(join(staging, "test.patch"), withNewline(input.testPatch));
    const name = `a2a-bench-swe-${process.pid}-${randomBytes(6).toString("hex")}`;
    try {
      container = await KeepaliveContainer.start({
        image: input.image, owner: input.owner, readOnlyRoot: false,
        tmpfs: [`/tmp:rw,nosuid,nodev,size=${TMPFS_BYTES},mode=1777`],
        memoryBytes: input.limits.memoryBytes, pids: input.limits.maxProcesses + PIDS_SLACK, cpus: 1,
        copyIn: { hostDir: staging, target: PATCH_DIR },
      }, name, input.env);
    } catch (e) {
      return { ...none, infraError: (e as Error).message, startMs: performance.now() - t0 };
    }
    const startMs = performance.now() - t0;
    if (input.signal?.aborted) return { ...none, isCanceled: true, startMs };
    const t1 = performance.now();
    const c = container;
    const run = await new Promise<{ log: string; exitCode: number | null; reason: "timeout" | "canceled" | null; spawnError: string | null }>((resolve) => {
      const child = spawn(dockerBinary(input.env), ["exec", c.id, "/bin/bash", `${PATCH_DIR}/eval.sh`], { env: input.env, stdio: ["ignore", "pipe", "pipe"] });
      // One log of both streams in arrival order, as the official test_output.txt.
      const log = new OutputTail(MAX_EVAL_LOG_BYTES);
      let reason: "timeout" | "canceled" | null = null;
      let spawnError: string | null = null;
      const stop = (why: "timeout" | "canceled"): void => {
        if (reason) return;
        reason = why;
        // The tests run in the container, not in the client: kill the container.
        void docker(["kill", c.id], { env: input.env }).finally(() => child.kill("SIGKILL"));
      };
      const timer = setTimeout(() => stop("timeout"), input.timeoutMs);
      const onAbort = (): void => stop("canceled");
      input.signal?.addEventListener("abort", onAbort, { once: true });
      child.on("error", (e) => { spawnError = e.message; });
      child.stdout.on("data", (b: Buffer) => log.push(b));
      child.stderr.on("data", (b: Buffer) => log.push(b));
      child.on("close", (code) => {
        clearTimeout(timer);
        input.signal?.removeEventListener("abort", onAbort);
        resolve({ log: log.text(), exitCode: code, reason, spawnError });
      });
    });
    const execMs = performance.now() - t1;
    const t2 = performance.now();
    await container.remove().catch(() => undefined);
    container = null;
    const teardownMs = performance.now() - t2;
    const base = { log: run.log, exitCode: run.exitCode, timedOut: run.reason === "timeout", isCanceled: run.reason === "canceled", startMs, execMs, teardownMs };
    if (run.spawnError) return { ...base, infraError: `cannot run the docker CLI: ${run.spawnError}` };
    // 125-127 are the exec client's own failures (cannot exec bash): the image is not a test bed.
    if (!run.reason && run.exitCode !== null && run.exitCode >= 125 && run.exitCode <= 127 && run.log.trim().split("\n").length < 5) {
      return { ...base, infraError: `docker exec of the eval script failed (exit ${run.exitCode}): ${run.log.trim().slice(-300)}` };
    }
    return base;
  } finally {
    if (container) await container.remove().catch(() => undefined);
    await rm(staging, { recursive: true, force: true });
  }
}
