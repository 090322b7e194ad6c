/**
 * The runner → green agent progress protocol: one stdout line per event,
 * `A2A_EVENT:` followed by compact JSON. Everything else a runner prints is
 * plain output (kept in a ring buffer by the green agent).
 *
 * Event names follow smi_bench (`run_started`, `checkpoint_written`,
 * `run_finished`, `package_started`, `package_finished`) plus our generic
 * `task_started` / `task_finished` for benchmark items.
 */
export const EVENT_PREFIX = "A2A_EVENT:";

export interface RunStartedEvent {
  event: "run_started";
  run_id: string;
  benchmark: string;
  total: number;
  [key: string]: unknown;
}
export interface TaskStartedEvent {
  event: "task_started";
  task_id: string;
  i: number;
  total?: number;
  [key: string]: unknown;
}
export interface TaskFinishedEvent {
  event: "task_finished";
  task_id: string;
  i: number;
  /** Outcome label of the benchmark (passed/failed/timeout/error, resolved, ...). */
  status: string;
  passed: boolean;
  elapsed_seconds?: number;
  done?: number;
  total?: number;
  passed_so_far?: number;
  [key: string]: unknown;
}
export interface CheckpointWrittenEvent {
  event: "checkpoint_written";
  path?: string;
  done?: number;
  [key: string]: unknown;
}
export interface RunFinishedEvent {
  event: "run_finished";
  results_path?: string;
  run_metadata_path?: string;
  events_path?: string;
  aggregate?: Record<string, unknown>;
  [key: string]: unknown;
}
/** smi_bench (smi-inhabit) names, accepted from external runners. */
export interface PackageStartedEvent {
  event: "package_started";
  package_id: string;
  i: number;
  [key: string]: unknown;
}
export interface PackageFinishedEvent {
  event: "package_finished";
  package_id: string;
  i: number;
  elapsed_seconds?: number;
  error?: string | null;
  timed_out?: boolean;
  [key: string]: unknown;
}

export type RunnerEvent =
  | RunStartedEvent
  | TaskStartedEvent
  | TaskFinishedEvent
  | CheckpointWrittenEvent
  | RunFinishedEvent
  | PackageStartedEvent
  | PackageFinishedEvent;

export const KNOWN_EVENTS: ReadonlySet<string> = new Set([
  "run_started",
  "task_started",
  "task_finished",
  "checkpoint_written",
  "run_finished",
  "package_started",
  "package_finished",
]);

/** Serialise an event as one protocol line (with trailing newline). */
export function formatEventLine(ev: RunnerEvent): string {
  return EVENT_PREFIX + JSON.stringify(ev) + "\n";
}

export type ParsedLine =
  | { kind: "event"; event: RunnerEvent }
  | { kind: "bad-event"; line: string; reason: string }
  | { kind: "output"; line: string };

/** Classify one line of runner stdout. Never throws. */
export function parseRunnerLine(line: string): ParsedLine {
  if (!line.startsWith(EVENT_PREFIX)) return { kind: "output", line };
  const body = line.slice(EVENT_PREFIX.length);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { kind: "bad-event", line, reason: "not JSON" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { kind: "bad-event", line, reason: "not a JSON object" };
  }
  const name = (value as { event?: unknown }).event;
  if (typeof name !== "string" || !KNOWN_EVENTS.has(name)) {
    return { kind: "bad-event", line, reason: `unknown event ${JSON.stringify(name)}` };
  }
  return { kind: "event", event: value as RunnerEvent };
}
