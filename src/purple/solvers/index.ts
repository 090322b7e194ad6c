/**
 * The registry of purple solver modes: ONE table mapping a mode name to its
 * factory. A mode is added as one table entry. echo, gold, replay and agent
 * also play interactive episodes (src/purple/interactive/).
 */
import type { Solver } from "../solver.js";
import { UsageError } from "../../util/errors.js";
import { createEchoSolver } from "./echo.js";
import { createGoldSolver } from "./gold.js";
import { createReplaySolver } from "./replay.js";
import type { SolverOptions } from "./options.js";

export type { SolverOptions } from "./options.js";

export type SolverFactory = (options: SolverOptions) => Solver | Promise<Solver>;

/** Mode name → factory. Extend by adding an entry. */
export const SOLVERS: Record<string, SolverFactory> = {
  echo: (options) => createEchoSolver(options),
  gold: (options) => createGoldSolver(options),
  // Loaded when chosen: the OpenAI client is most of the purple's code, and echo/gold/replay never need it.
  openai: async (options) => (await import("./openai.js")).createOpenAISolver(options),
  replay: (options) => createReplaySolver(options),
  agent: async (options) => (await import("./agent.js")).createAgentSolver(options),
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
