import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { useBatchHeapPolicy } from "../../src/util/batch-heap.js";
import { command as runCommand } from "../../src/cli/run.js";

const MODULE = pathToFileURL(join(__dirname, "../../dist/util/batch-heap.js")).href;

/**
 * In a process of its own, a batch's shape: allocate fast while keeping a sliding window of survivors
 * (they outlive scavenges, reach the old generation and die there). Reports the young and old
 * generations' sizes in MB: the young one's at the end, the old one's peak.
 */
function spacesAfterBatch(policy: boolean): { young: number; old: number } {
  const script = `
    import { getHeapSpaceStatistics } from "node:v8";
    import { useBatchHeapPolicy } from ${JSON.stringify(MODULE)};
    if (${policy}) useBatchHeapPolicy();
    const mb = (name) => getHeapSpaceStatistics().find((s) => s.space_name === name).space_size / 1048576;
    const keep = [];
    let old = 0;
    for (let i = 0; i < 2000000; i++) {
      keep.push({ i, s: "x" + i, a: [i, i + 1] });
      if (keep.length > 100000) keep.splice(0, 50000);
      if (i % 10000 === 0) old = Math.max(old, mb("old_space"));
    }
    console.log(JSON.stringify({ young: mb("new_space"), old }));`;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
}

describe("useBatchHeapPolicy", () => {
  it("keeps both generations near the live data where V8's defaults let them grow", () => {
    const grown = spacesAfterBatch(false);
    const held = spacesAfterBatch(true);
    expect(grown.young).toBeGreaterThan(8);
    expect(held.young).toBeLessThanOrEqual(4);
    expect(held.old).toBeLessThan(grown.old * 0.6);
  });

  it("is the run command's process setup (the CLI's dispatcher applies it; a test calling run does not)", () => {
    expect(runCommand.processSetup).toBe(useBatchHeapPolicy);
  });
});
