/** A bundle built by the real builder from a synthetic outcome (tests). */
import { buildBundle } from "../../src/bundle/build.js";
import type { RunnerOutcome } from "../../src/process/outcome.js";

const outcome = (o: Partial<RunnerOutcome> = {}): RunnerOutcome => ({
  exitCode: 0,
  signal: null,
  terminationReason: null,
  timedOut: false,
  isCanceled: false,
  isForcefullyTerminated: false,
  spawnError: null,
  startedAtMs: 1_700_000_000_000,
  finishedAtMs: 1_700_000_002_500,
  durationMs: 2_500,
  outputTail: ["hello"],
  ...o,
});
const artifacts = {
  results_path: "/r/results.json",
  run_metadata_path: "/r/run_metadata.json",
  events_path: "/r/events.jsonl",
};

export function sampleBundle(o: Partial<RunnerOutcome> = {}) {
  return buildBundle({
    benchmark: "humaneval",
    runId: "r1",
    config: { benchmark: "humaneval" },
    participants: { agent: "http://a/" },
    outcome: outcome(o),
    artifacts,
    files: {
      missing: [],
      results: { verdict: null, isolation: null, aggregate: { accuracy: 1 }, smi: null, items: [] },
      resultsError: null,
    },
  });
}
