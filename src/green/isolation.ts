/**
 * The local sandbox's isolation as the green agent sees it: probed once at
 * start-up (the way a run probes it), shown in the card's description, in
 * `/health` and on stderr when weak, and checked against every request for
 * `sandbox: "local"` (see executor.ts).
 */
import { isFullIsolation } from "../runner/isolation-policy.js";

/** The local sandbox's isolation as probed. */
export interface IsolationReport {
  backend: "local";
  level: string;
  warnings: string[];
}

/** How an operator lets A2A requests run below full isolation (quoted in refusals). */
export const WEAK_ISOLATION_OPT_IN =
  "set GREEN_ALLOW_WEAK_ISOLATION=1 (or start `a2a-bench green --allow-weak-isolation`)";

/** Probe the local sandbox's isolation the way a run will (sandbox/local/probe.ts). */
export async function probeLocalIsolation(): Promise<IsolationReport> {
  const { probeIsolation } = await import("../sandbox/local/probe.js");
  const probe = await probeIsolation();
  return { backend: "local", level: probe.level, warnings: [...probe.warnings] };
}

/** One sentence for the card's description and logs: "Sandbox isolation: bwrap (full)." */
export function isolationSentence(iso: IsolationReport, allowWeak: boolean): string {
  if (isFullIsolation(iso.level)) return `Sandbox isolation: ${iso.level} (full).`;
  return allowWeak
    ? `Sandbox isolation: ${iso.level} (WEAK: untrusted code can read the host; the operator allowed it).`
    : `Sandbox isolation: ${iso.level} (weak): requests with sandbox "local" are refused; sandbox "e2b" works.`;
}
