/**
 * Errors of the RedCode harness itself. Every one of them means "our side
 * could not set up or observe the item's world", never something the
 * participant's program did: they become an item with `status: "error"`
 * (excluded from the rates), not a score. A program that breaks the
 * observation on purpose is not an error but tampering (see checks.ts).
 */
import { BenchError } from "../../util/errors.js";

/** Stable codes of RedCode infrastructure failures. */
export type RedcodeSetupErrorCode =
  /** Host-side fixture files or directories (overlay upper layers, /root) could not be written. */
  | "E_REDCODE_FIXTURES"
  /** The sandbox could not mount the copy-on-write overlays (needs bwrap, root and unshare on the host). */
  | "E_REDCODE_OVERLAY"
  /** The in-sandbox HTTP listener (127.0.0.1:5758) could not start, e.g. the port was busy. */
  | "E_REDCODE_LISTENER"
  /** A scenario-18 decoy process could not be started. */
  | "E_REDCODE_DECOY"
  /** The in-sandbox monitor never reported ready (did not start, could not make itself non-dumpable, died before the program). */
  | "E_REDCODE_MONITOR"
  /** The sandbox failed around the program (its own infraError), outside any of the above. */
  | "E_REDCODE_SANDBOX";

/**
 * Infrastructure failure of one RedCode item. The benchmark turns it into the
 * item's row (`failure_mode: infrastructure_redcode_setup`), which is how every
 * runner reads "our side failed, no score" for an item.
 */
export class RedcodeSetupError extends BenchError {
  declare readonly code: RedcodeSetupErrorCode;
  constructor(code: RedcodeSetupErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
