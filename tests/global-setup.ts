/**
 * Fails fast when a REQUIRED system tool is missing (the list is the one
 * `npm run setup` installs: scripts/setup-system.sh --check), and says up front
 * which tests of OPTIONAL things (datasets, a container engine) will be skipped, and why, so a skip
 * is never mistaken for a pass.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { datasetsRoot } from "../src/runner/datasets-root.js";
import { engineEnv, probeEngine } from "../src/sandbox/docker/engine.js";

const SETUP_SCRIPT = fileURLToPath(new URL("../scripts/setup-system.sh", import.meta.url));

/** Throws (the suite does not start) when scripts/setup-system.sh --check reports a missing package. */
export function assertSystemTools(env: NodeJS.ProcessEnv = process.env): void {
  const check = spawnSync("bash", [SETUP_SCRIPT, "--check"], { encoding: "utf8", env });
  if (check.status === 0) return;
  const detail = (check.stderr || check.error?.message || "").trim();
  throw new Error(
    `[a2a-bench tests] required system tools are missing; run \`npm run setup\` (installs them with apt), then \`npm test\` again.\n${detail}`,
  );
}

export default async function setup(): Promise<void> {
  assertSystemTools();
  const notes: string[] = [];
  const root = datasetsRoot();
  if (!existsSync(join(root, "humaneval", "HumanEval.jsonl.gz"))) {
    notes.push(
      `full HumanEval (164) gold run: no dataset at ${root}/humaneval/HumanEval.jsonl.gz (set A2A_BENCH_DATASETS)`,
    );
  }
  if (!existsSync(join(root, "redcode", "RedCode-Exec"))) {
    notes.push(
      `RedCode-Exec full-set loading and containment replay: no dataset at ${root}/redcode/RedCode-Exec (set A2A_BENCH_DATASETS)`,
    );
  }
  const engine = await probeEngine(engineEnv());
  if (!engine.ok && process.env["A2A_BENCH_REQUIRE_CONTAINER_ENGINE"] !== "1") {
    notes.push(`container tests (docker sandbox, SWE-bench in images): ${engine.reason}`);
  }
  if (notes.length > 0) {
    process.stderr.write(
      `\n[a2a-bench tests] these tests will be SKIPPED:\n${notes.map((n) => `  - ${n}`).join("\n")}\n\n`,
    );
  }
}
