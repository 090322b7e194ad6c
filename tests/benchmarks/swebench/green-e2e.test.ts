/**
 * End to end through the green agent: an AgentBeats-shaped request with
 * `benchmark: "swebench"` → the built-in runner (dist/cli.js run swebench)
 * → a real purple agent in gold mode → the real sandbox → the evaluation
 * bundle. Needs `npm run build` (npm test builds first).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient } from "../../../src/a2a/client/client.js";
import { partData } from "../../../src/a2a/shared/parts.js";
import { validateBundle } from "../../../src/bundle/validate.js";
import { builtinRunnerCommand } from "../../../src/green/runner-command.js";
import { createPurpleApp } from "../../../src/purple/app.js";
import { createGoldSolver } from "../../../src/purple/solvers/gold.js";
import { cliEntry, packageRoot } from "../../../src/util/package-root.js";
import { serveOnLoopback } from "../../a2a/helpers.js";
import { requestOf, startGreen, type StartedGreen } from "../../green/helpers.js";

let cache: string;
let purple: Awaited<ReturnType<typeof serveOnLoopback>>;
let green: StartedGreen;
let resultsRoot: string;
beforeAll(async () => {
  if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
  // One throw-away cache for the runner child and the in-process gold solver (same deterministic commits).
  cache = await mkdtemp(join(tmpdir(), "swebench-green-cache-"));
  process.env["A2A_BENCH_CACHE_DIR"] = cache;
  purple = await serveOnLoopback((card) => createPurpleApp({ card, solver: createGoldSolver() }));
  // Results under the package (git-ignored .cache/), not /tmp: see sandboxed.test.ts for why.
  await mkdir(join(packageRoot, ".cache"), { recursive: true });
  resultsRoot = await mkdtemp(join(packageRoot, ".cache", "swebench-green-"));
  await chmod(resultsRoot, 0o755); // traversable by the sandbox uid (mkdtemp makes 0700)
  green = await startGreen(builtinRunnerCommand(), { resultsRoot }, { ...process.env, A2A_BENCH_CACHE_DIR: cache });
});
afterAll(async () => {
  await green?.close();
  await purple?.close();
  delete process.env["A2A_BENCH_CACHE_DIR"];
  await rm(cache, { recursive: true, force: true });
  await rm(resultsRoot, { recursive: true, force: true });
});

describe("green agent with benchmark swebench", () => {
  it("runs the embedded set against a gold purple agent: resolved_rate 1, SWE-bench report in the bundle, artifacts on disk", async () => {
    const client = await createA2AClient(green.url, "1.0");
    const body = {
      participants: { agent: purple.url },
      config: { benchmark: "swebench", dataset: "sample", per_task_timeout_seconds: 60, run_id: "swe-green" },
    };
    const task = (await client.sendMessage(requestOf(body))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const art = task.artifacts.find((a) => a.name === "evaluation_bundle");
    const b = partData(art!.parts[0]!)!;
    expect(validateBundle(b)).toEqual([]);
    const metrics = b["metrics"] as Record<string, unknown>;
    expect(metrics).toMatchObject({ resolved_rate: 1, patch_apply_rate: 1, resolved: 3, total: 3 });
    expect(metrics["swebench_report"]).toMatchObject({ schema_version: 2, resolved_instances: 3, error_instances: 0 });
    const artifacts = b["artifacts"] as Record<string, string>;
    for (const key of ["results_path", "events_path", "run_metadata_path"])
      expect(existsSync(artifacts[key]!), key).toBe(true);
    const results = JSON.parse(readFileSync(artifacts["results_path"]!, "utf8")) as {
      rows?: Array<Record<string, unknown>>;
      results?: Array<Record<string, unknown>>;
    };
    const rows = results.rows ?? results.results ?? [];
    expect(rows).toHaveLength(3);
    for (const r of rows) expect(existsSync(String(r["report_path"]))).toBe(true);
  }, 180_000);
});
