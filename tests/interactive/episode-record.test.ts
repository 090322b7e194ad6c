/**
 * Every way an episode can end is a value results.json accepts wherever an episode's ending is written (a
 * SWE-bench row, a HumanEval sample): a run whose episode ended in a way the schema left out could not write
 * its results at all.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EPISODE_EXIT_STATUSES } from "../../src/interactive/episode-record.js";
import { schemasDir } from "../../src/util/package-root.js";

/** Every `exit_status` enum in a schema document, wherever it is. */
function exitStatusEnums(node: unknown, found: string[][] = []): string[][] {
  if (Array.isArray(node)) for (const v of node) exitStatusEnums(v, found);
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      const values = (value as { enum?: unknown } | null)?.enum;
      if (key === "exit_status" && Array.isArray(values)) found.push(values as string[]);
      exitStatusEnums(value, found);
    }
  }
  return found;
}

describe("episode endings in results.json", () => {
  it("each exit_status the schema lists is exactly the episode's endings", () => {
    const schema = JSON.parse(readFileSync(join(schemasDir, "results.schema.json"), "utf8")) as unknown;
    const enums = exitStatusEnums(schema);
    expect(enums.length).toBeGreaterThanOrEqual(2);
    for (const values of enums) expect([...values].sort()).toEqual([...EPISODE_EXIT_STATUSES].sort());
  });
});
