/**
 * The runner → green agent progress protocol: one stdout line per event,
 * `A2A_EVENT:` followed by compact JSON. Everything else a runner prints is
 * plain output (kept in a ring buffer by the green agent).
 *
 * Event names follow smi_bench (`run_started`, `checkpoint_written`,
 * `run_finished`, `package_started`, `package_finished`) plus our generic
 * `task_started` / `task_finished` for benchmark items.
 *
 * `schemas/runner_event.schema.json` is the single source of truth: one
 * definition per event (`$defs/<event>`), which the interfaces below restate
 * (tests/runner/protocol.test.ts holds them to it). {@link parseRunnerLine}
 * validates every event line on arrival against its event's definition, so
 * what it returns as an event has the fields its type promises.
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import { formatAjvErrors, loadValidators } from "../util/schema.js";

export const EVENT_PREFIX = "A2A_EVENT:";

/** The schema every event line is validated against (one `$defs` entry per event). */
export const RUNNER_EVENT_SCHEMA_FILE = "runner_event.schema.json";

export interface RunStartedEvent {
  event: "run_started";
  run_id: string;
  benchmark: string;
  total: number;
  /** Present only when `samples` asked for more items than the dataset has: what was asked. */
  samples_requested?: number;
  /** With `samples_requested`: the dataset's item count (all of them run). */
  dataset_items?: number;
  /** Items already judged in the checkpoint a resumed run continues. */
  resumed?: number;
  /** The run's `time_budget_seconds`, when it has one. */
  time_budget_seconds?: number;
  /** With `time_budget_seconds`: what is left of it as the first item starts. */
  budget_left_seconds?: number;
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
  /** Why an item that did not pass failed (`infrastructure_*`: ours). */
  failure_mode?: string;
  [key: string]: unknown;
}

/**
 * Whether a finished item is the harness's error (out of the rates) rather than the participant's failure:
 * by its failure mode when the event carries one (attribution.ts: only `infrastructure_*` is ours), else by
 * its status (a runner that sends no failure mode).
 */
export function isHarnessErrorEvent(ev: Pick<TaskFinishedEvent, "passed" | "status" | "failure_mode">): boolean {
  if (ev.passed) return false;
  if (typeof ev.failure_mode === "string") return ev.failure_mode.startsWith("infrastructure_");
  return ev.status === "error" || ev.status.startsWith("error");
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
  /** True when the time budget ran out before every selected item ran. */
  partial?: true;
  /** With `partial`: how many selected items were not run. */
  not_run?: number;
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

/** Interactive items: a command the participant asked for, before it runs (bounded: one line, clipped). */
export interface TurnEvent {
  event: "turn";
  task_id: string;
  turn: number;
  /** `$ <command>` (src/interactive/episode.ts commandStatusLine). */
  status: string;
  [key: string]: unknown;
}

export type RunnerEvent =
  | RunStartedEvent
  | TaskStartedEvent
  | TaskFinishedEvent
  | CheckpointWrittenEvent
  | RunFinishedEvent
  | PackageStartedEvent
  | PackageFinishedEvent
  | TurnEvent;

/** Every event name, as the schema's `event` enum lists them. */
export const RUNNER_EVENT_NAMES = [
  "run_started",
  "task_started",
  "task_finished",
  "checkpoint_written",
  "run_finished",
  "package_started",
  "package_finished",
  "turn",
] as const satisfies ReadonlyArray<RunnerEvent["event"]>;

export const KNOWN_EVENTS: ReadonlySet<string> = new Set(RUNNER_EVENT_NAMES);

type EventName = (typeof RUNNER_EVENT_NAMES)[number];

let eventValidators: Map<string, ValidateFunction> | undefined;

/**
 * One validator per event name, from the schema's `$defs` (generated at build,
 * see util/schema.ts), loaded on first use: the runner itself only writes
 * events and never pays for this.
 */
function validatorOf(name: EventName): ValidateFunction {
  if (!eventValidators) {
    const { validators } = loadValidators({ file: RUNNER_EVENT_SCHEMA_FILE, defs: true });
    eventValidators = new Map();
    for (const n of RUNNER_EVENT_NAMES) {
      const v = validators[n];
      if (!v) throw new Error(`${RUNNER_EVENT_SCHEMA_FILE} has no $defs/${n}`);
      eventValidators.set(n, v);
    }
  }
  return eventValidators.get(name)!;
}

function isEventName(name: unknown): name is EventName {
  return typeof name === "string" && KNOWN_EVENTS.has(name);
}

/** Problems of `value` as the event `name` (empty = valid), each naming its JSON path. */
export function runnerEventProblems(name: EventName, value: unknown): string[] {
  const v = validatorOf(name);
  return v(value) ? [] : formatAjvErrors(v.errors);
}

/** Serialise an event as one protocol line (with trailing newline). */
export function formatEventLine(ev: RunnerEvent): string {
  return EVENT_PREFIX + JSON.stringify(ev) + "\n";
}

export type ParsedLine =
  | { kind: "event"; event: RunnerEvent }
  | { kind: "bad-event"; line: string; reason: string }
  | { kind: "output"; line: string };

/**
 * Classify one line of runner stdout. Never throws: a line that starts with
 * the prefix but is not JSON, names no known event or fails its event's
 * schema comes back as `bad-event` with the reason (the caller keeps it as
 * output).
 */
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
  if (!isEventName(name)) {
    return { kind: "bad-event", line, reason: `unknown event ${JSON.stringify(name)}` };
  }
  const problems = runnerEventProblems(name, value);
  if (problems.length > 0) return { kind: "bad-event", line, reason: `invalid ${name}: ${problems.join("; ")}` };
  // Checked just above against the event's schema definition, which RunnerEvent restates.
  return { kind: "event", event: value as RunnerEvent };
}
