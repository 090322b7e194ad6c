import type { SandboxLimits } from "./types.js";
import { SandboxError } from "./errors.js";

/**
 * Defaults per program. 1 GiB of address space runs every HumanEval solution
 * (CPython itself maps ~30 MiB) while stopping runaway allocation long before
 * the host notices; 64 processes leave room for test suites that spawn helpers.
 */
export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryBytes: 1024 * 1024 * 1024,
  maxProcesses: 64,
  maxOutputBytes: 1024 * 1024,
  cpuSeconds: 30,
});

/** Size of the private tmpfs mounted at /tmp inside a bwrap sandbox, bytes (RAM-backed). */
export const TMPFS_BYTES = 256 * 1024 * 1024;

/**
 * Files (inodes) each private tmpfs may hold: a job's ("private" mode of the local fork server) and a local
 * environment's /tmp, /var/tmp and /dev/shm (remounted with the cap before the drop: launch-command.ts). A
 * tmpfs inode costs kernel memory that `size=` does not count: without a cap, a program creating empty files
 * until its time runs out takes the host's memory, not its own (200,000 empty files took ~205 MB).
 * Bubblewrap's own tmpfs mounts elsewhere (the shared mode, a host that is not root) take no inode option;
 * there the program's time limit is the bound.
 */
export const TMPFS_INODES = 16 * 1024;

/**
 * Bytes an environment may write to its own disk by default (limits.diskBytes): 4 GiB holds a SWE-bench
 * repository re-created at its base commit, its build products and test caches many times over, and
 * stops a participant filling the host's disk long before the host notices.
 */
export const ENVIRONMENT_DISK_BYTES = 4 * 1024 * 1024 * 1024;

/** Merge and validate limits once, at the entry (messages name the option). */
export function resolveLimits(partial: Partial<SandboxLimits> | undefined): SandboxLimits {
  const limits = { ...DEFAULT_LIMITS, ...(partial ?? {}) };
  for (const key of ["memoryBytes", "maxProcesses", "maxOutputBytes", "cpuSeconds"] as const) {
    const v = limits[key];
    if (!Number.isInteger(v) || v <= 0) {
      throw new SandboxError("E_SANDBOX_OPTIONS", `limits.${key} must be a positive integer, got ${String(v)}`);
    }
  }
  if (limits.diskBytes !== undefined && (!Number.isInteger(limits.diskBytes) || limits.diskBytes <= 0))
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `limits.diskBytes must be a positive integer, got ${String(limits.diskBytes)}`,
    );
  return limits;
}
