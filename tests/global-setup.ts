/**
 * Says up front which environment-dependent tests will be skipped, and why,
 * so a skip is never mistaken for a pass.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { datasetsRoot } from "../src/runner/datasets-root.js";
import { engineEnv, probeEngine } from "../src/sandbox/docker/engine.js";

export default async function setup(): Promise<void> {
  const notes: string[] = [];
  const root = datasetsRoot();
  if (!existsSync(join(root, "humaneval", "HumanEval.jsonl.gz"))) {
    notes.push(`full HumanEval (164) gold run: no dataset at ${root}/humaneval/HumanEval.jsonl.gz (set A2A_BENCH_DATASETS)`);
  }
  if (!existsSync(join(root, "redcode", "RedCode-Exec"))) {
    notes.push(`RedCode-Exec full-set loading and containment replay: no dataset at ${root}/redcode/RedCode-Exec (set A2A_BENCH_DATASETS)`);
  }
  const engine = await probeEngine(engineEnv());
  if (!engine.ok && process.env["A2A_BENCH_REQUIRE_CONTAINER_ENGINE"] !== "1") {
    notes.push(`container tests (docker sandbox, SWE-bench in images): ${engine.reason}`);
  }
  if (!existsSync("/usr/bin/bwrap")) notes.push("bubblewrap containment tests: /usr/bin/bwrap missing (apt-get install bubblewrap)");
  if (notes.length > 0) {
    process.stderr.write(`\n[a2a-bench tests] these tests will be SKIPPED:\n${notes.map((n) => `  - ${n}`).join("\n")}\n\n`);
  }
}
