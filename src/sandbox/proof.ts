/**
 * Node half of the pass proof: a fresh token per job (crypto), and the
 * verdict from what the job's private channel carried. The python half is
 * PROOF_HARNESS_PY; see ExecRequest.proof for the contract.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { ProofVerdict } from "./types.js";

/** Token bytes (hex-encoded on the wire): 128 bits, not guessable within a job's lifetime. */
const TOKEN_BYTES = 16;
/** Characters of a refusal note kept in the outcome. */
const NOTE_CHARS = 200;

/** A fresh random token for one job. */
export function newProofToken(): string {
  return randomBytes(TOKEN_BYTES).toString("hex");
}

/** Verdict of what the channel carried (`null`: the channel was never set up or carried nothing). */
export function judgeProof(
  seen: string | null | undefined,
  token: string,
): { proof: ProofVerdict; proofNote?: string } {
  if (seen === null || seen === undefined || seen === "") {
    return {
      proof: "missing",
      proofNote: "the program did not return normally (exit, signal or exception before the harness trailer)",
    };
  }
  const a = Buffer.from(seen, "latin1");
  const b = Buffer.from(token, "latin1");
  if (a.length === b.length && timingSafeEqual(a, b)) return { proof: "verified" };
  if (seen.startsWith("X:"))
    return { proof: "tampered", proofNote: seen.slice(2).split("\n")[0]!.slice(0, NOTE_CHARS) };
  return { proof: "mismatch", proofNote: "the proof channel carried something other than this job's token" };
}
