/**
 * What a benchmark owns about itself, in one light object that imports
 * nothing heavy: its name, whether a run asks a participant, how it talks to
 * one, the `$defs` entry of its results rows, what preflight must find before
 * a run with a given sandbox backend, its reference answers for the purple
 * `gold` mode and its runner plug-in, both loaded on first use. Each
 * benchmark's folder exports one (`src/benchmarks/<name>/descriptor.ts`); the
 * registry (index.ts) is the only list of them.
 */
import type { BenchmarkDefinition, BenchmarkItem } from "../runner/benchmark.js";
import type { AssessmentConfig } from "../request-config/config.js";
import type { Interaction } from "../request-config/config.js";
import type { ProgramNeed, SandboxBackendDescriptor } from "../sandbox/backend.js";
import type { SandboxCapability } from "../sandbox/capabilities.js";
import type { GoldAnswerer, GoldEpisodePlanner } from "./gold.js";

export { INTERACTIONS, type Interaction } from "../request-config/config.js";

/** The config keys that decide whether a run asks a participant. */
export type ParticipantConfig = Pick<AssessmentConfig, "predictions" | "replay_dataset_code"> & { benchmark: string };

/**
 * Config defaults a benchmark sets for itself where one value cannot fit all: the request schema states
 * each as an `if benchmark = <name>` entry of its `allOf` (Ajv applies it in the one resolver), and
 * tests/benchmarks/registry.test.ts keeps the schema and the descriptors equal.
 */
export type BenchmarkDefaults = Partial<Pick<AssessmentConfig, "per_task_timeout_seconds">>;

/** Something preflight looks for on this host before a run. */
export type HostNeed =
  | ({ kind: "program" } & ProgramNeed)
  /** A module the host's python3 must import. */
  | { kind: "python-module"; module: string; fix(python: string): string }
  /** This process must run as root. */
  | { kind: "root"; tool: string; fix: string };

/** A JSON Schema object (a `$defs` entry). */
export type JsonSchemaObject = Readonly<Record<string, unknown>>;

/**
 * A benchmark's part of schemas/results.schema.json: the `$defs` entries its rows use, its `rowSchema` among
 * them (`#/$defs/row` is the common row to extend). The build writes them there, with the `if benchmark =
 * <name>` entry that applies `rowSchema` to its rows (src/registry-schemas/).
 */
export interface ResultsSchemaFragment {
  readonly $defs: Readonly<Record<string, JsonSchemaObject>>;
}

/** Who runs the benchmark's items. */
export type BenchmarkRunner =
  /** `a2a-bench run <name>`: the plug-in, imported on first use. */
  | { kind: "built-in"; load(): Promise<BenchmarkDefinition<BenchmarkItem>> }
  /** A program the operator configures (the green agent starts it); its results have their own schema. */
  | { kind: "external" };

export interface BenchmarkDescriptor<Name extends string = string> {
  readonly name: Name;
  /** One line for usage texts and docs. */
  readonly summary: string;
  /** The interactions it offers (the request's `interaction` must be one of them). */
  readonly interactions: readonly Interaction[];
  /**
   * Whether a run with this config asks the participant anything (a
   * predictions file or a replay replaces it). One answer for the runner and
   * the green agent's request check (needs-participant.ts).
   */
  needsParticipant(config: ParticipantConfig): boolean;
  /**
   * Its rows' definition in schemas/results.schema.json: `$defs/<rowSchema>`,
   * chosen by an `if benchmark = <name>` entry of the schema's `allOf`, both
   * written by the build from the registry (src/registry-schemas/).
   * Null for an external runner, whose results have their own schema.
   */
  readonly rowSchema: string | null;
  /** Its rows' `$defs` (see {@link ResultsSchemaFragment}), loaded by the build; required with a `rowSchema`. */
  readonly resultsSchema?: () => Promise<ResultsSchemaFragment>;
  /**
   * What the request's `dataset` takes for it besides `sample` (its embedded set), for the schema's
   * description and the config reference; omitted when it reads no dataset file.
   */
  readonly datasets?: string;
  /** Sandbox capabilities every run needs; preflight refuses a backend that lacks one. */
  readonly sandboxNeeds: readonly SandboxCapability[];
  /** What preflight looks for on this host before a run with `backend` (after the backend's own programs). */
  hostNeeds(backend: SandboxBackendDescriptor): readonly HostNeed[];
  /** Its own config defaults (see {@link BenchmarkDefaults}); a key it leaves out takes the schema's general one. */
  readonly defaults?: BenchmarkDefaults;
  /** Reference answers for the purple `gold` mode (a gold run must score 100%), imported on first use. */
  readonly gold?: () => Promise<GoldAnswerer>;
  /** How a perfect participant acts in an interactive episode, for the purple `gold` mode; imported on first use. */
  readonly goldEpisode?: () => Promise<GoldEpisodePlanner>;
  readonly runner: BenchmarkRunner;
}

/** Typed identity: keeps a descriptor's name as a literal type (`as const` without writing it). */
export function defineBenchmark<const Name extends string>(
  descriptor: BenchmarkDescriptor<Name>,
): BenchmarkDescriptor<Name> {
  return descriptor;
}
