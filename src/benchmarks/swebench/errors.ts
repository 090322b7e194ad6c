/**
 * SWE-bench's typed errors. Two kinds matter to whoever classifies outcomes:
 *
 * - {@link SwebenchInfraError}: our side cannot run the evaluation (a required
 *   tool is missing, a repository is absent). Never a model score: the
 *   instance is an infrastructure error, and the message says how to fix it.
 * - {@link SwebenchSpecError}: the instance record asks for something the
 *   official spec table does not define (unknown version or parser): an
 *   input error.
 *
 * Codes are stable strings (see {@link SWEBENCH_ERROR_CODES}).
 */
import { BenchError } from "../../util/errors.js";

export const SWEBENCH_ERROR_CODES = {
  /** git is not on the host's PATH (worktrees, patch application). */
  GIT_MISSING: "E_SWEBENCH_GIT_MISSING",
  /** python3 cannot be started in the sandbox. */
  PYTHON_MISSING: "E_SWEBENCH_PYTHON_MISSING",
  /** A Python module the tests need (pytest, tox, ...) is not importable in the sandbox. */
  TOOL_MISSING: "E_SWEBENCH_TOOL_MISSING",
} as const;

export type SwebenchInfraCode = (typeof SWEBENCH_ERROR_CODES)[keyof typeof SWEBENCH_ERROR_CODES];

/**
 * Infrastructure failure: our environment, not the participant. The benchmark
 * turns it into the instance's row (`failure_mode: infrastructure_tool_missing`),
 * which is how every runner reads "our side failed, no score" for an item.
 */
export class SwebenchInfraError extends BenchError {
  constructor(code: SwebenchInfraCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** The instance record names a version or parser the official table does not have. */
export class SwebenchSpecError extends BenchError {}
