/**
 * Runner faults through the green agent: each ends the task with a valid
 * bundle that says what happened, and `ps` shows no survivor of the runner's
 * process group. Complements tests/green (crash mid-run, non-zero exit,
 * garbage output, cancel of TERM-ignoring runners and grandchildren) and
 * tests/green/supervisor (flood at the supervisor level, stdin lifeline).
 */
import { afterEach, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { partData } from "../../src/a2a/shared/parts.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { createA2AClient } from "../../src/a2a/client/client.js";
import type { Task } from "@a2a-js/sdk";
import { TaskState } from "@a2a-js/sdk";
import {
  assessment,
  fixtureRunner,
  psAlive,
  psGroup,
  requestOf,
  startGreen,
  type StartedGreen,
} from "../green/helpers.js";

let green: StartedGreen | undefined;
afterEach(async () => {
  await green?.close();
  green = undefined;
});

async function runOnce(
  fixture: string,
  env: NodeJS.ProcessEnv,
  settings = {},
): Promise<{ bundle: Record<string, unknown>; pids: Record<string, number> }> {
  green = await startGreen(fixtureRunner(fixture), { graceMs: 300, ...settings }, { ...process.env, ...env });
  const client = await createA2AClient(green.url, "0.3");
  const task = (await client.sendMessage(requestOf(assessment({ run_id: "fault" })))) as Task;
  const art = task.artifacts.find((a) => a.name === "evaluation_bundle");
  const bundle = partData(art!.parts[0]!)!;
  expect(validateBundle(bundle)).toEqual([]);
  // Only an ok bundle is a score; every runner fault ends the task failed (the bundle still attached).
  expect(task.status?.state).toBe(
    bundle["status"] === "ok" ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_FAILED,
  );
  const workDir = join(green.resultsRoot, "a2a", "fault");
  let pids: Record<string, number> = {};
  try {
    pids = JSON.parse(readFileSync(join(workDir, "pids.json"), "utf8")) as Record<string, number>;
  } catch {
    // flood.mjs writes none; its group is checked through the bundle's exit only.
  }
  return { bundle, pids };
}

function expectNoSurvivor(pids: Record<string, number>): void {
  expect(pids["runner"], "runner pid recorded").toBeGreaterThan(0);
  expect(psGroup(pids["runner"]!)).toEqual([]);
  for (const pid of Object.values(pids)) expect(psAlive(pid), `pid ${pid}`).toBe(false);
}

const modes = (b: Record<string, unknown>) => (b["metrics"] as { failure_modes: Record<string, number> }).failure_modes;

test("crash at start (before any event) → bundle: runner_failed, exit 1, stderr in the tail; no survivor", async () => {
  const { bundle, pids } = await runOnce("fault.mjs", { A2A_BENCH_FIXTURE_FAULT: "crash-at-start" });
  expect(bundle["status"]).toBe("runner_failed");
  expect(bundle["exit_code"]).toBe(1);
  expect(modes(bundle)["infrastructure_runner_exit_nonzero"]).toBe(1);
  expect((bundle["runner_output_tail"] as string[]).join("\n")).toMatch(/crashing at start/);
  expectNoSurvivor(pids);
});

test("crash after results (SIGKILL after run_finished) → bundle keeps the results and says killed; no survivor", async () => {
  const { bundle, pids } = await runOnce("fault.mjs", { A2A_BENCH_FIXTURE_FAULT: "crash-after-results" });
  expect(bundle["status"]).toBe("runner_failed");
  expect(modes(bundle)["infrastructure_runner_killed"]).toBe(1);
  expect((bundle["metrics"] as Record<string, unknown>)["accuracy"]).toBeCloseTo(0.5);
  expectNoSurvivor(pids);
});

test("hangs silently and ignores SIGTERM → the run limit kills it (SIGKILL after grace); bundle timed_out; no survivor", async () => {
  const t0 = Date.now();
  const { bundle, pids } = await runOnce(
    "fault.mjs",
    { A2A_BENCH_FIXTURE_FAULT: "hang-silent" },
    { runnerTimeoutMs: 800 },
  );
  const elapsed = Date.now() - t0;
  expect(bundle["status"]).toBe("timed_out");
  expect(modes(bundle)["timeout"]).toBe(1);
  expect(elapsed).toBeGreaterThanOrEqual(800 + 300);
  // The runner never ends by itself: timed_out is the proof; the bound only says it ended on a slow machine.
  expect(elapsed).toBeLessThan(30_000);
  expectNoSurvivor(pids);
});

test("leaves a TERM-ignoring grandchild and exits 0 → bundle ok, the grandchild is killed", async () => {
  const { bundle, pids } = await runOnce("fault.mjs", { A2A_BENCH_FIXTURE_FAULT: "grandchild-after-run" });
  expect(bundle["status"]).toBe("ok");
  expect(pids["grandchild"]).toBeGreaterThan(0);
  expectNoSurvivor(pids);
});

test("floods stdout (5000 lines + a 1 MiB line) → bundle ok with a bounded tail", async () => {
  const { bundle } = await runOnce("flood.mjs", {});
  expect(bundle["status"]).toBe("ok");
  const tail = bundle["runner_output_tail"] as string[];
  expect(tail.length).toBeLessThanOrEqual(200);
  expect(JSON.stringify(bundle).length).toBeLessThan(1024 * 1024);
});
