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

/** Typed failure: no reference answer for this task. */
export class GoldError extends BenchError {
  constructor(message: string) {
    super("E_GOLD", message);
  }
}
