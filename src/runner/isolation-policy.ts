/**
 * The policy on sandbox isolation. Untrusted code that arrives over A2A runs
 * only at full isolation unless the operator opted in to less
 * (GREEN_ALLOW_WEAK_ISOLATION / `green --allow-weak-isolation`). Which levels
 * are full each backend declares (its descriptor's `fullIsolation`); this
 * module asks the sandbox registry and decides nothing of its own.
 */
import { InfrastructureError } from "../util/infrastructure-error.js";
import { fullIsolationLevels, isFullIsolationLevel } from "../sandbox/registry.js";

/**
 * Whether the participant's code cannot read or change the host at `level`: bubblewrap namespaces, an E2B
 * microVM, a container of the docker backend (no network, no capabilities, read-only root, a uid per job).
 */
export function isFullIsolation(level: string): boolean {
  return isFullIsolationLevel(level);
}

/** How to get full isolation back (printed with every refusal and warning). */
export const WEAK_ISOLATION_FIX =
  "install bubblewrap (`apt-get install -y bubblewrap`) and allow unprivileged user namespaces " +
  '(`sysctl kernel.unprivileged_userns_clone=1` where that sysctl exists), or use `sandbox: "e2b"` or `sandbox: "docker"`';

/** The refusal of a run at `level` when full isolation is required. */
export function weakIsolationError(level: string, optIn: string): InfrastructureError {
  return new InfrastructureError(
    "E_ISOLATION_WEAK",
    `refusing to run untrusted code at sandbox isolation "${level}" (needs one of ${fullIsolationLevels().join(", ")}): ` +
      `at this level the participant's code can read the host's files`,
    { fix: `${WEAK_ISOLATION_FIX}; or, knowingly, ${optIn}` },
  );
}

/** One line for a terminal when a run goes ahead at a weak level. */
export function weakIsolationWarning(level: string): string {
  return `WARNING: sandbox isolation is "${level}", not full (${fullIsolationLevels().join("/")}): untrusted code can read this machine's files. Fix: ${WEAK_ISOLATION_FIX}.`;
}
