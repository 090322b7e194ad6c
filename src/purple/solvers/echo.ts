import type { Solver, SolverInput, SolverReply } from "../solver.js";
import { createInteractiveSolver, type InteractiveSolver } from "../interactive/interactive-solver.js";
import { finalStep, type Episode } from "../interactive/episode.js";
import type { SolverOptions } from "./options.js";

/**
 * Echo mode (wiring tests, smi_bench's purple stub): replies
 * `{ok: true, echo: <what it received>}` — the received data when the message
 * carried a DataPart, else its text.
 */
export function createSingleShotEchoSolver(): Solver {
  return {
    mode: "echo",
    solve(input: SolverInput): Promise<SolverReply> {
      return Promise.resolve({ data: { ok: true, echo: input.data ?? input.text } });
    },
  };
}

/** An interactive episode that gives up at once, as RDI's dummy purple does (scores 0, a clean run). */
const giveUp: Episode = {
  start: () => Promise.resolve(finalStep()),
  next: () => Promise.resolve(finalStep()),
};

/** Echo mode: `final` at once to an interactive `task`; any other message echoed single-shot. */
export function createEchoSolver(options: SolverOptions = {}): InteractiveSolver {
  return createInteractiveSolver("echo", () => giveUp, {
    ...options.episodes,
    singleShot: createSingleShotEchoSolver(),
  });
}
