import type { Solver, SolverInput, SolverReply } from "../solver.js";

/**
 * Echo mode (wiring tests, smi_bench's purple stub): replies
 * `{ok: true, echo: <what it received>}` — the received data when the message
 * carried a DataPart, else its text.
 */
export function createEchoSolver(): Solver {
  return {
    mode: "echo",
    solve(input: SolverInput): Promise<SolverReply> {
      return Promise.resolve({ data: { ok: true, echo: input.data ?? input.text } });
    },
  };
}
