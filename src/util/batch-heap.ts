/**
 * V8's heap sizing for a batch process: one that allocates fast, keeps little, and never goes idle
 * until it ends (a run scoring thousands of completions: about 11 MB live in a HumanEval run at
 * n = 200). V8's defaults suit the opposite. It doubles the young generation's semi-spaces (1 MB up to
 * 16 MB each) whenever the bytes surviving its scavenges add up to their size, and lets the old
 * generation grow up to 4× what was live after the last full collection; it gives either back only when
 * the process goes idle. So a run's peak RSS grew with its number of completions though its live data
 * did not.
 *
 * Both are V8 flags read when V8 decides to grow (the semi-space growth factor at each growth, the
 * heap growing percent at each full collection), so a process can set them for itself; the semi-space
 * size limit (`--max-semi-space-size`) is read only when the heap is set up, which a running process
 * is past. Measured by hand, `run humaneval --predictions` under `time -v`, 4 tasks × 200 gold
 * completions: peak RSS 104 MB with V8's defaults, 86–87 MB with the semi-spaces held, 72–75 MB with the
 * old generation's growth at 50 % as well; the wall times (33–36 s) do not differ beyond run-to-run noise.
 */
import { setFlagsFromString } from "node:v8";

/** The old generation may grow to this many percent above what the last full collection left live. */
export const BATCH_HEAP_GROWING_PERCENT = 50;

/** For the rest of this process's life: the young generation keeps its initial size, the old one grows by at most BATCH_HEAP_GROWING_PERCENT. */
export function useBatchHeapPolicy(): void {
  setFlagsFromString("--semi-space-growth-factor=1");
  setFlagsFromString(`--heap-growing-percent=${BATCH_HEAP_GROWING_PERCENT}`);
}
