/** What the shard tests share: a gold purple that can hold one item's answer, and waits on files. */
import { existsSync, readFileSync } from "node:fs";
import { createSingleShotGoldSolver } from "../../src/purple/solvers/gold.js";
import type { Solver } from "../../src/purple/solver.js";

/** The gold solver, holding the first request for `held.id` (once set) until that request is aborted or released. */
export function holdingGold(onHold: (release: () => void) => void): {
  solver: Solver;
  held: { id: string | null; arrived: Promise<void> };
} {
  const gold = createSingleShotGoldSolver({ datasets: [], env: process.env });
  let arrived!: () => void;
  const held = { id: null as string | null, arrived: new Promise<void>((r) => (arrived = r)) };
  let holding = false;
  const solver: Solver = {
    mode: "gold",
    async solve(input, signal) {
      const id = (input.data ?? input.metadata ?? {})["task_id"];
      if (held.id !== null && id === held.id && !holding) {
        holding = true;
        arrived();
        await new Promise<void>((resolve) => {
          onHold(resolve);
          signal.addEventListener("abort", () => resolve(), { once: true });
        });
      }
      return gold.solve(input, signal);
    },
  };
  return { solver, held };
}

/** Until `check()` holds; each look after the machine had time to move (a state, not a guessed delay). */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

export const rowLines = (path: string): number =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter((l) => l.includes('"row"')).length
    : 0;
