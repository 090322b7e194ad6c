/**
 * What a sandbox backend can do beyond running one program in a fresh place
 * (`exec`, which every backend offers). A backend declares the capabilities it
 * has *now* (after probing its host, engine or account) in
 * `Sandbox.capabilities`; a caller that needs one asks for it by name up
 * front (`requireCapabilities`) and is refused with a typed error naming the
 * backend, the capability and the fix when it is missing. Nothing falls back
 * to a weaker way of doing the same thing: fail closed.
 *
 * Prior art: Inspect AI's sandbox environments (per-sample init, exec many
 * commands, read/write files, cleanup) behind one interface every backend
 * implements; here that session is the `environments` capability
 * (environment.ts), and the local backend's host-facing request fields are
 * capabilities of their own.
 */
import type { ExecRequest, Sandbox, SandboxCapability } from "./types.js";
import { InfrastructureError } from "../util/infrastructure-error.js";

export { SANDBOX_CAPABILITIES, type SandboxCapability } from "./types.js";

/** What each capability is and which configuration offers it (the fix a refusal names). */
export const CAPABILITY_FIX: Readonly<Record<SandboxCapability, string>> = Object.freeze({
  environments:
    "use a backend that opens per-item environments (sandbox: docker, sandbox: e2b, or sandbox: local at bwrap isolation)",
  images:
    "use a backend whose environments start from container images (sandbox: docker, or sandbox: e2b with a template per image)",
  "host-workdir": "use the local sandbox (sandbox: local)",
  "host-binds": "use the local sandbox at bwrap isolation",
  overlays: "use the local sandbox at bwrap isolation, as root with unshare(1) on the host (in a container: --user 0)",
  "userns-root": "use the local sandbox at bwrap isolation",
});

/** A caller needs a capability its sandbox does not have: the run stops (our configuration, never a score). */
export class SandboxCapabilityError extends InfrastructureError {
  /** Backend that lacks it. */
  readonly backend: string;
  readonly capability: SandboxCapability;
  /** Who asked (a benchmark's name). */
  readonly caller: string;
  /** `fix` defaults to the capability's own (CAPABILITY_FIX). */
  constructor(backend: string, capability: SandboxCapability, caller: string, fix?: string) {
    super(
      "E_SANDBOX_CAPABILITY",
      `${caller} needs the sandbox capability '${capability}', which the ${backend} backend does not offer here`,
      { fix: fix ?? CAPABILITY_FIX[capability] },
    );
    this.backend = backend;
    this.capability = capability;
    this.caller = caller;
  }
}

/** Throw SandboxCapabilityError for the first of `needed` that `sandbox` lacks. */
export function requireCapabilities(
  sandbox: Pick<Sandbox, "backend" | "capabilities">,
  needed: readonly SandboxCapability[],
  caller: string,
): void {
  for (const c of needed)
    if (!sandbox.capabilities.has(c)) throw new SandboxCapabilityError(sandbox.backend, c, caller);
}

/** The capabilities one request uses (none for a plain program with files, env and stdin). */
export function requestCapabilities(req: ExecRequest): SandboxCapability[] {
  const needs: SandboxCapability[] = [];
  if (req.workDir !== undefined) needs.push("host-workdir");
  if ((req.binds?.length ?? 0) > 0) needs.push("host-binds");
  if ((req.overlays?.length ?? 0) > 0) needs.push("overlays");
  // Anything but absent or false asks for root: a truthy non-boolean from an untyped caller would skip the
  // uid drop where the launch reads it as true, so it must not skip the refusal either.
  if (req.asRoot !== undefined && req.asRoot !== false) needs.push("userns-root");
  return needs;
}

/**
 * Why `sandbox` must not run `req` (the `infraError` of its outcome), or null. Every backend asks this
 * before anything runs, so a request never meets a backend that would silently ignore one of its fields.
 */
export function refusedRequest(sandbox: Pick<Sandbox, "backend" | "capabilities">, req: ExecRequest): string | null {
  const missing = requestCapabilities(req).filter((c) => !sandbox.capabilities.has(c));
  if (missing.length === 0) return null;
  return `the ${sandbox.backend} backend lacks the capabilit${missing.length > 1 ? "ies" : "y"} ${missing.map((c) => `'${c}'`).join(", ")} this request needs (${CAPABILITY_FIX[missing[0]!]})`;
}
