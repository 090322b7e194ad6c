/**
 * The green agent killed with SIGKILL in the middle of a real run (built-in
 * HumanEval runner, real local sandbox, a participant over A2A): the runner
 * and its sandbox processes die too (the runner's lifeline fd), the checkpoint stays
 * valid, and a restarted green agent resumes the run (`resume: true`, same
 * `run_id`). Resuming with other settings, or from a hand-edited checkpoint,
 * is refused with a clear reason and leaves the checkpoint as it was.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readCheckpoint } from "../../src/runner/checkpoint.js";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPurpleApp } from "../../src/purple/app.js";
import type { Solver } from "../../src/purple/solver.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { message, rpc } from "../conformance/agents.js";
import { commandOf, descendants, startGreenProcess, until, waitAllGone, type GreenProcess } from "./processes.js";

/** A HumanEval body that keeps the sandbox busy for 1.5 s, then returns a wrong answer. */
const SLOW_BODY = "    import time\n    time.sleep(1.5)\n    return None\n";
const RUN_ID = "killed-mid-run";
const SAMPLES = 4;

const solver: Solver = { mode: "slow-body", solve: async () => ({ text: SLOW_BODY }) };

describe("green SIGKILL mid-run, then resume", () => {
  let home: string;
  let purpleUrl: string;
  let closePurple: () => Promise<void>;
  const greens: GreenProcess[] = [];
  const workDir = () => join(home, "results", "a2a", RUN_ID);
  const env = () => ({ ...process.env, GREEN_RESULTS_DIR: join(home, "results"), LOG_LEVEL: "info" });
  const request = (config: Record<string, unknown>) =>
    JSON.stringify({
      participants: { agent: purpleUrl },
      config: {
        benchmark: "humaneval",
        dataset: "sample",
        samples: SAMPLES,
        concurrency: 1,
        run_id: RUN_ID,
        ...config,
      },
    });

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "green-kill-"));
    const served = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
    purpleUrl = served.url;
    closePurple = () => served.close();
  });
  afterAll(async () => {
    for (const g of greens) g.child.kill("SIGKILL");
    await closePurple?.();
    rmSync(home, { recursive: true, force: true });
  });

  test(
    "SIGKILL of the green agent takes the runner and its sandbox down; the checkpoint survives",
    { timeout: 60_000 },
    async () => {
      const green = await startGreenProcess(env());
      greens.push(green);
      const sent = await rpc(green.url, "message/send", {
        message: message(request({})),
        configuration: { blocking: false },
      });
      expect((sent.body.result as { status: { state: string } }).status.state).toMatch(/submitted|working/);
      const checkpoint = join(workDir(), "checkpoint.jsonl");
      // Mid-run: at least one item checkpointed (header + a row line), and the sandbox is executing the next one.
      await until("a checkpointed item", () =>
        existsSync(checkpoint) && readFileSync(checkpoint, "utf8").split("\n").length >= 3 ? true : undefined,
      );
      const tree = await until("the sandbox running under the runner", () => {
        const pids = descendants(green.pid);
        return pids.some((p) => /bwrap|python/.test(commandOf(p))) ? pids : undefined;
      });
      const commands = tree.map(commandOf);
      expect(commands.some((c) => c.includes(" run humaneval "))).toBe(true);

      green.child.kill("SIGKILL");
      const survivors = await waitAllGone(tree, 10_000);
      expect(survivors.map((p) => `${p} ${commandOf(p)}`)).toEqual([]);

      const saved = await readCheckpoint(checkpoint); // every line verifies (a torn last one is dropped)
      expect(saved.rows.length).toBeGreaterThanOrEqual(1);
      expect(saved.rows.length).toBeLessThan(SAMPLES);
      expect(existsSync(join(workDir(), "evaluation_bundle.json"))).toBe(false);
    },
  );

  /** Send a resume request to a fresh green process; returns the final task. */
  async function resume(config: Record<string, unknown>): Promise<{ state: string; bundle: Record<string, unknown> }> {
    const green = await startGreenProcess(env());
    greens.push(green);
    try {
      const r = await rpc(green.url, "message/send", { message: message(request({ resume: true, ...config })) });
      const task = r.body.result as {
        status: { state: string };
        artifacts?: Array<{ name: string; parts: Array<{ kind: string; data?: Record<string, unknown> }> }>;
      };
      const bundle =
        task.artifacts?.find((a) => a.name === "evaluation_bundle")?.parts.find((p) => p.kind === "data")?.data ?? {};
      return { state: task.status.state, bundle };
    } finally {
      const exited = new Promise((r) => green.child.once("exit", r));
      green.child.kill("SIGTERM");
      await exited;
    }
  }

  test(
    "resuming with other settings is refused by name; the checkpoint is untouched",
    { timeout: 60_000 },
    async () => {
      const before = readFileSync(join(workDir(), "checkpoint.jsonl"));
      const { state, bundle } = await resume({ seed: 7 });
      expect(state).toBe("failed"); // a refused resume measured nothing: no score
      expect(validateBundle(bundle)).toEqual([]);
      expect(bundle["status"]).toBe("runner_failed");
      expect((bundle["runner_output_tail"] as string[]).join("\n")).toMatch(/seed/);
      expect(readFileSync(join(workDir(), "checkpoint.jsonl")).equals(before)).toBe(true);
    },
  );

  test(
    "a hand-edited checkpoint is refused (checksum mismatch); the edited file is not overwritten",
    { timeout: 60_000 },
    async () => {
      const path = join(workDir(), "checkpoint.jsonl");
      copyFileSync(path, path + ".orig");
      const edited = readFileSync(path, "utf8").replace(/"passed": ?false/, '"passed": true');
      expect(edited).not.toBe(readFileSync(path, "utf8"));
      writeFileSync(path, edited);
      const { state, bundle } = await resume({});
      expect(state).toBe("failed");
      expect(bundle["status"]).toBe("runner_failed");
      expect((bundle["runner_output_tail"] as string[]).join("\n")).toMatch(/checksum/i);
      expect(readFileSync(path, "utf8")).toBe(edited);
      copyFileSync(path + ".orig", path);
      rmSync(path + ".orig");
    },
  );

  test(
    "a restarted green agent resumes the run from the checkpoint and completes it",
    { timeout: 90_000 },
    async () => {
      const done = (await readCheckpoint(join(workDir(), "checkpoint.jsonl"))).rows.length;
      const { state, bundle } = await resume({});
      expect(state).toBe("completed");
      expect(validateBundle(bundle)).toEqual([]);
      expect(bundle["status"]).toBe("ok");
      const meta = JSON.parse(readFileSync(join(workDir(), "run_metadata.json"), "utf8")) as {
        items: Record<string, number>;
      };
      expect(meta.items).toMatchObject({ selected: SAMPLES, resumed: done, evaluated: SAMPLES - done });
      const results = JSON.parse(readFileSync(join(workDir(), "results.json"), "utf8")) as { rows?: unknown[] };
      expect(results.rows?.length).toBe(SAMPLES);
    },
  );
});
