/**
 * Is the sandbox itself working? A participant's program can break the
 * sandbox it runs in (kill its own fork server, `kill -9 -1`), which the
 * benchmark sees as `infrastructure_sandbox`. Counting those as our failure
 * would let an adversarial participant turn a low score into "no score". So
 * when a run has such rows, the runner runs one trivial program in the same
 * sandbox afterwards: if it works, the sandbox was sound and those failures
 * are the participant's (they stay failed items, scored); if it does not, the
 * sandbox is broken and they count as infrastructure (run-verdict.ts).
 */
import type { Sandbox } from "../sandbox/types.js";
import type { Environment } from "../sandbox/environment.js";
import { SandboxError } from "../sandbox/errors.js";

/** The failure mode a participant's program can cause by breaking its own sandbox. */
export const SANDBOX_FAILURE_MODE = "infrastructure_sandbox";
/** Time limit of the canary program, ms (sandbox start included). */
export const CANARY_TIMEOUT_MS = 20_000;

/**
 * Run `print(6*7)` in `sandbox` and, where it offers environments, open one and run `echo 42` in it: true
 * when both printed 42 with no sandbox failure. An environment matters: a participant can exhaust what every
 * environment needs (the host's inodes under its temporary directory) while a plain program still runs; a
 * backend that opens none without an image (containers) is judged by the program alone. Never throws.
 */
export async function sandboxWorks(sandbox: Sandbox): Promise<boolean> {
  try {
    const out = await sandbox.exec({ language: "python", code: "print(6*7)\n", timeoutMs: CANARY_TIMEOUT_MS });
    if (!(out.infraError === undefined && out.exitCode === 0 && out.stdoutTail.trim() === "42")) return false;
  } catch {
    return false;
  }
  return environmentWorks(sandbox);
}

async function environmentWorks(sandbox: Sandbox): Promise<boolean> {
  if (!sandbox.capabilities.has("environments") || sandbox.openEnvironment === undefined) return true;
  let env: Environment;
  try {
    env = await sandbox.openEnvironment({ owner: "a2a-bench-canary" }, AbortSignal.timeout(CANARY_TIMEOUT_MS));
  } catch (e) {
    // A backend that needs an image for an environment cannot be asked without one: the program decides.
    return e instanceof SandboxError && e.code === "E_SANDBOX_OPTIONS";
  }
  try {
    const out = await env.exec(["sh", "-c", "echo 42"], { timeoutMs: CANARY_TIMEOUT_MS });
    return out.infraError === undefined && out.exitCode === 0 && out.output.trim() === "42";
  } catch {
    return false;
  } finally {
    await env.close().catch(() => undefined);
  }
}
