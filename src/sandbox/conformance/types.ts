/** The conformance suite's names and records, shared by the runner (index.ts) and the checks. */
import type { SandboxBackendDescriptor, SandboxGuarantee } from "../backend.js";
import type { Sandbox, SandboxLimits } from "../types.js";
import { isFullIsolationLevel } from "../registry.js";
import type { ProcessObserver } from "./observe.js";

/** Every check, in the order it runs and is reported. */
export const CONFORMANCE_CHECKS = [
  "exec.exit-codes",
  "exec.streams",
  "exec.literal",
  "files.in",
  "limits.output",
  "limits.memory",
  "limits.processes",
  "timeout.process-group",
  "cancel",
  "network.none",
  "environments.exec",
  "environments.files",
  "environments.timeout",
  "cleanup.close",
  "environments.teardown",
] as const;
export type ConformanceCheckName = (typeof CONFORMANCE_CHECKS)[number];

/** One check's result (flat, the same shape for every status). */
export interface ConformanceResult {
  check: ConformanceCheckName;
  status: "passed" | "failed" | "not-applicable";
  /** What was seen (failed), or why it does not apply; empty when passed. */
  detail: string;
  durationMs: number;
}

/** What a check gets: a fresh sandbox maker and what the backend claims. */
export interface CheckContext {
  descriptor: SandboxBackendDescriptor;
  limits: SandboxLimits;
  /** Create a sandbox of the backend with the suite's limits (the check closes it). */
  create(): Promise<Sandbox>;
  observer: ProcessObserver | null;
  resources: (() => Promise<readonly string[]>) | null;
  image: string | undefined;
  /** Absolute directory an environment can write, for the checks' files. */
  filesDir: string;
  owner: string;
}

/** A check returns null when passed, a string saying what failed, or `{ na }` when it does not apply. */
export type CheckOutcome = null | string | { na: string };
/** A check on the suite's shared sandbox. */
export type Check = (ctx: CheckContext, sandbox: Sandbox) => Promise<CheckOutcome>;
/** A check that creates (and closes) a sandbox of its own: it runs after the shared one is closed. */
export type OwnCheck = (ctx: CheckContext) => Promise<CheckOutcome>;

/** The limits the suite runs under: small enough that breaking them is quick, large enough for python. */
export const CONFORMANCE_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryBytes: 256 * 1024 * 1024,
  maxProcesses: 32,
  maxOutputBytes: 64 * 1024,
  cpuSeconds: 60,
});

/** Whether the sandbox's isolation keeps the network away (a backend below full isolation does not claim it). */
export function claims(ctx: CheckContext, sandbox: Sandbox, g: SandboxGuarantee): { na: string } | null {
  if (!(ctx.descriptor.guarantees ?? []).includes(g))
    return { na: `the ${ctx.descriptor.name} backend does not claim ${g}` };
  if (!isFullIsolationLevel(sandbox.isolation))
    return { na: `the sandbox runs at ${sandbox.isolation} isolation, below full: ${g} is not claimed there` };
  return null;
}
