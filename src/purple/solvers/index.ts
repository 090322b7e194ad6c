/**
 * The registry of purple solver modes: ONE table mapping a mode name to its
 * factory. Other modes (gold, openai) are added here as table entries.
 */
import type { Solver } from "../solver.js";
import { UsageError } from "../../util/errors.js";
import type { Logger } from "../../util/logger.js";
import { createEchoSolver } from "./echo.js";
import { createGoldSolver } from "./gold.js";
import type { OpenAIFlagValues } from "./openai-settings.js";

/** Options every solver factory receives (from the purple CLI flags / env). */
export interface SolverOptions {
  /** `--model`: model name for LLM-backed modes. */
  model?: string;
  /** `--dataset`: dataset paths for modes that look answers up (repeatable). */
  datasets?: string[];
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** `openai` mode's checked flags (sampling, client timeout/retries, base URL). */
  openai?: OpenAIFlagValues;
}

export type SolverFactory = (options: SolverOptions) => Solver | Promise<Solver>;

/** Mode name → factory. Extend by adding an entry. */
export const SOLVERS: Record<string, SolverFactory> = {
  echo: () => createEchoSolver(),
  gold: (options) => createGoldSolver(options),
  // Loaded when chosen: the OpenAI client is most of the purple's code, and echo/gold never need it.
  openai: async (options) => (await import("./openai.js")).createOpenAISolver(options),
};

/** Names of the registered modes, in table order. */
export function solverModes(): string[] {
  return Object.keys(SOLVERS);
}

/** Create the solver of `mode`; an unknown mode is a UsageError listing the known ones. */
export async function createSolver(mode: string, options: SolverOptions = {}): Promise<Solver> {
  const factory = Object.hasOwn(SOLVERS, mode) ? SOLVERS[mode] : undefined;
  if (!factory) throw new UsageError(`unknown mode "${mode}" (known: ${solverModes().join(", ")})`);
  return factory(options);
}
