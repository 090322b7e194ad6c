/**
 * What preflight looks for before a run of `benchmark` with `backend`, as the
 * two registries' descriptors say: the sandbox capabilities the benchmark
 * needs, the backend's own programs, then the benchmark's (each tool once).
 * Pure; default-probes.ts looks for them on this host.
 */
import type { BenchmarkDescriptor, HostNeed } from "../benchmarks/descriptor.js";
import type { SandboxBackendDescriptor } from "../sandbox/backend.js";
import type { SandboxCapability } from "../sandbox/capabilities.js";

/** A sandbox capability the benchmark needs, and whether the backend has it (decided without probing). */
export interface CapabilityNeed {
  kind: "capability";
  capability: SandboxCapability;
  tool: string;
  ok: boolean;
  detail: string;
  fix: string;
}

export type PreflightNeed = HostNeed | CapabilityNeed;

/** The needs in the order preflight reports them. An external runner brings its own: none. */
export function preflightNeeds(
  benchmark: BenchmarkDescriptor,
  backend: SandboxBackendDescriptor,
  backends: readonly SandboxBackendDescriptor[],
): PreflightNeed[] {
  if (benchmark.runner.kind === "external") return [];
  const capabilities = benchmark.sandboxNeeds.map((capability): CapabilityNeed => {
    const ok = backend.capabilities.has(capability);
    const having = backends.filter((b) => b.capabilities.has(capability)).map((b) => b.name);
    return {
      kind: "capability",
      capability,
      tool: `sandbox ${capability}`,
      ok,
      detail: ok ? `the ${backend.name} backend has it` : `the ${backend.name} backend has none`,
      fix: `${benchmark.name} needs sandbox ${capability}: use --sandbox ${having.join(" or ") || "(no registered backend has it)"}`,
    };
  });
  const programs: HostNeed[] = backend.preflight.programs.map((p) => ({ kind: "program", ...p }));
  const seen = new Set<string>();
  const host = [...programs, ...benchmark.hostNeeds(backend)].filter((need) => {
    const key = need.kind === "python-module" ? `python:${need.module}` : need.tool;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return [...capabilities, ...host];
}
