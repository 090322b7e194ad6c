/**
 * The contract of a benchmark's reference answers, which the purple agent's
 * `gold` mode sends (src/purple/solvers/gold.ts): a gold run that does not
 * score 100% exposes a harness bug, not a model's. Each benchmark that has
 * them names its answerer in its descriptor (`gold`).
 */
import { BenchError } from "../util/errors.js";

/** Where a gold answerer may look for the task's dataset. */
export interface GoldContext {
  /** Datasets given to the purple CLI (`--dataset`), tried after the request's own. */
  datasets: readonly string[];
  env: NodeJS.ProcessEnv;
}

/** The reference answer, as the participant would send it. */
export interface GoldAnswer {
  text: string;
}

/** Looks up the reference answer of one task (the request's DataPart or metadata). */
export type GoldAnswerer = (task: Record<string, unknown>, ctx: GoldContext) => Promise<GoldAnswer>;

/** One thing a perfect participant does in an interactive episode; the purple turns it into shell commands. */
export type GoldStep =
  /** Write `content` to `path` (relative to the task's workdir). */
  | { kind: "write_file"; path: string; content: string }
  /** Apply a unified diff in the task's workdir (`git apply`). */
  | { kind: "apply_patch"; patch: string }
  /** Run a shell command as written, from the task's workdir. */
  | { kind: "run"; command: string };

/** A gold episode of one instance: its steps, then `final` with `output` (default `<what>: done`). */
export interface GoldPlan {
  /** What the steps do, for the final output. */
  what: string;
  steps: GoldStep[];
  output?: string;
}

/** The instance of an interactive gold episode, and how its green takes the answer. */
export interface GoldEpisodeTask {
  id: string;
  /** The green takes the change from the final answer (AgentSWE) rather than from the environment. */
  finalPatch: boolean;
}

/** Plans the gold episode of one instance (a benchmark's descriptor names it: `goldEpisode`). */
export type GoldEpisodePlanner = (task: GoldEpisodeTask, ctx: GoldContext) => Promise<GoldPlan>;

/** Typed failure: no reference answer for this task. */
export class GoldError extends BenchError {
  constructor(message: string) {
    super("E_GOLD", message);
  }
}
