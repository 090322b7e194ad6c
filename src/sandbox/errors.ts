import { BenchError } from "../util/errors.js";

/** Stable codes of sandbox errors (misuse or configuration, never a program's own failure). */
export type SandboxErrorCode =
  | "E_SANDBOX_CLOSED"
  | "E_SANDBOX_OPTIONS"
  | "E_SANDBOX_UNAVAILABLE"
  /** Host-side preparation of one exec failed (e.g. lending its work dir). */
  | "E_SANDBOX_SETUP"
  | "E_E2B_API_KEY"
  /** The optional package @e2b/code-interpreter is not installed. */
  | "E_E2B_SDK_MISSING"
  | "E_E2B"
  /** The optional package @kubernetes/client-node is not installed. */
  | "E_K8S_CLIENT_MISSING"
  /** The Kubernetes API server refused or did not answer (kubeconfig, RBAC, namespace). */
  | "E_K8S";

/** A sandbox could not be created or was misused (e.g. exec after close). */
export class SandboxError extends BenchError {
  declare readonly code: SandboxErrorCode;
  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
