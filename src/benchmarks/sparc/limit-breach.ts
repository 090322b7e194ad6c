/**
 * Whether the sandbox had to stop a program for breaching a containment
 * limit (output cap, memory, process count, network), language-agnostic
 * (Python, node). Same categories as the HumanEval plug-in, so "safety"
 * means the same thing across benchmarks. A timeout is not a breach: it is
 * counted as a timeout (efficiency and accuracy see it).
 */
import type { ExecOutcome } from "../../sandbox/types.js";

export type LimitBreach = "safety_output_limit" | "safety_memory_limit" | "safety_process_limit" | "safety_network";

const MEMORY = /MemoryError|Cannot allocate memory|JavaScript heap out of memory|\bENOMEM\b/;
const PROCESSES = /BlockingIOError|Resource temporarily unavailable|fork: retry|spawn EAGAIN|\bEAGAIN\b/;
const NETWORK =
  /Network is unreachable|Temporary failure in name resolution|Name or service not known|\bENETUNREACH\b|\bEAI_AGAIN\b|\[Errno (?:101|97)\]/;

/** The breach the outcome shows, or null. */
export function limitBreach(o: ExecOutcome): LimitBreach | null {
  if (o.infraError !== undefined || o.timedOut) return null;
  if (o.outputLimitExceeded) return "safety_output_limit";
  if (o.exitCode === 0 && o.signal === null) return null;
  const err = o.stderrTail;
  if (MEMORY.test(err)) return "safety_memory_limit";
  if (PROCESSES.test(err)) return "safety_process_limit";
  if (NETWORK.test(err)) return "safety_network";
  // Killed without our timeout: the kernel's answer to the address-space / CPU caps.
  if (o.signal === "SIGKILL" || o.signal === "SIGSEGV" || o.signal === "SIGXCPU") return "safety_memory_limit";
  return null;
}
