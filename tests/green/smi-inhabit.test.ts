import { afterEach, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { partData } from "../../src/a2a/shared/parts.js";
import { defaultRunnerCommand } from "../../src/green/runner-command.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { RUNNERS_DIR, requestOf, startGreen, type StartedGreen } from "./helpers.js";

let green: StartedGreen | undefined;
afterEach(async () => {
  await green?.close();
  green = undefined;
});

test("smi-inhabit: operator's command, smi flags, schema_version 2 results mapped into metrics", async () => {
  const env = { ...process.env, GREEN_SMI_INHABIT_COMMAND: join(RUNNERS_DIR, "fake-smi-inhabit.mjs") };
  green = await startGreen(defaultRunnerCommand(env), {}, env);
  const client = await createA2AClient(green.url, "0.3");
  const body = {
    participants: { agent: "http://127.0.0.1:9/" },
    config: {
      benchmark: "smi-inhabit",
      run_id: "smi1",
      rpc_url: "http://rpc",
      simulation_mode: "dry-run",
      per_package_timeout_seconds: 30,
      max_plan_attempts: 2,
      samples: 2,
    },
  };
  const task = (await client.sendMessage(requestOf(body))) as Task;
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const bundle = partData(task.artifacts.find((a) => a.name === "evaluation_bundle")!.parts[0]!)!;
  expect(validateBundle(bundle)).toEqual([]);
  const metrics = bundle["metrics"] as Record<string, unknown>;
  expect(metrics).toMatchObject({ avg_hit_rate: 0.25, max_hit_rate: 0.5, results_schema_version: 2, samples: 2 });
  expect(metrics["failure_modes"]).toEqual({ other_error: 1 });
  expect(bundle["errors"]).toEqual([
    {
      package_id: "0xbbb",
      error: "simulation failed",
      timed_out: false,
      elapsed_seconds: 2.5,
      plan_attempts: 2,
      sim_attempts: 2,
      score: { targets: 2, created_distinct: 0, created_hits: 0, missing: 2 },
    },
  ]);
  const workDir = join(green.resultsRoot, "a2a", "smi1");
  const argv = JSON.parse(readFileSync(join(workDir, "argv.json"), "utf8")) as string[];
  expect(argv).toEqual([
    "--agent",
    "http://127.0.0.1:9/",
    "--rpc-url",
    "http://rpc",
    "--simulation-mode",
    "dry-run",
    "--per-package-timeout-seconds",
    "30",
    "--max-plan-attempts",
    "2",
    "--out",
    join(workDir, "results.json"),
    "--run-id",
    "smi1",
    "--samples",
    "2",
  ]);
  // the green agent records events and run metadata for the external runner
  expect(readFileSync(join(workDir, "events.jsonl"), "utf8")).toMatch(/package_finished/);
  expect(JSON.parse(readFileSync(join(workDir, "run_metadata.json"), "utf8"))).toMatchObject({
    run_id: "smi1",
    exit_code: 0,
  });
});
