/**
 * End to end: the runner CLI (dist/cli.js, as the green agent spawns it)
 * against a real purple agent in `gold` mode on 127.0.0.1:0, scoring in the
 * real local sandbox. Needs `npm run build` (npm test builds first).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCheckpoint } from "../../../src/runner/checkpoint.js";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPurpleApp } from "../../../src/purple/app.js";
import { createGoldSolver } from "../../../src/purple/solvers/gold.js";
import type { Solver } from "../../../src/purple/solver.js";
import { serveOnLoopback } from "../../a2a/helpers.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { cliEntry } from "../../../src/util/package-root.js";
import { LIFELINE_FD, LIFELINE_FD_ENV } from "../../../src/process/lifeline.js";
import type { Writable } from "node:stream";
import { parseRunnerLine, type RunnerEvent } from "../../../src/runner/protocol.js";
import { executeRun } from "../../../src/runner/run-benchmark.js";
import { createHumanEvalBenchmark } from "../../../src/benchmarks/humaneval/definition.js";
import { fullDatasetPath } from "../../../src/benchmarks/humaneval/dataset.js";
import type { HumanEvalRow } from "../../../src/benchmarks/humaneval/row.js";
import { createA2AParticipant } from "../../../src/a2a/client/participant-client.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { checkAgainst } from "../../../src/util/schema.js";
import { silentLogger } from "../../../src/util/logger.js";
import { testRunOptions } from "../../support/run-options.js";

type Served = ServedApp & { url: string };

/** Gold, but each answer waits `ms` first (so a run can be stopped midway). */
function slowGold(ms: number): Solver {
  const gold = createGoldSolver();
  return {
    mode: "gold-slow",
    async solve(input, signal) {
      await new Promise((r) => setTimeout(r, ms));
      return gold.solve(input, signal);
    },
  };
}

interface Spawned {
  child: ChildProcess;
  events: RunnerEvent[];
  stdoutOther: string[];
  stderr: string[];
  exit: Promise<number | null>;
  waitFor(pred: (e: RunnerEvent) => boolean): Promise<void>;
}

/** The runner as the green agent starts it: `--events`, stdout and stdin piped. */
function spawnRunner(args: string[]): Spawned {
  // As the green agent starts it: a lifeline pipe of its own at fd 3, named in the env.
  const child = spawn(process.execPath, [cliEntry, "run", "humaneval", "--events", ...args], {
    stdio: ["pipe", "pipe", "pipe", "pipe"],
    env: { ...process.env, [LIFELINE_FD_ENV]: String(LIFELINE_FD) },
  });
  const events: RunnerEvent[] = [];
  const stdoutOther: string[] = [];
  const stderr: string[] = [];
  const waiters: Array<{ pred: (e: RunnerEvent) => boolean; resolve: () => void }> = [];
  let buf = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    buf += chunk.toString();
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const parsed = parseRunnerLine(line);
      if (parsed.kind === "event") {
        events.push(parsed.event);
        for (const w of [...waiters])
          if (w.pred(parsed.event)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve();
          }
      } else stdoutOther.push(line);
    }
  });
  child.stderr?.on("data", (c: Buffer) => stderr.push(c.toString()));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    events,
    stdoutOther,
    stderr,
    exit,
    waitFor: (pred) =>
      new Promise<void>((resolve) => {
        if (events.some(pred)) resolve();
        else waiters.push({ pred, resolve });
      }),
  };
}

let gold: Served;
let slow: Served;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
  gold = await serveOnLoopback((card) => createPurpleApp({ card, solver: createGoldSolver() }));
  slow = await serveOnLoopback((card) => createPurpleApp({ card, solver: slowGold(300) }));
  dir = await mkdtemp(join(tmpdir(), "gold-run-"));
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await gold?.close();
  await slow?.close();
  await rm(dir, { recursive: true, force: true });
});

const hasFull = existsSync(fullDatasetPath());

describe("HumanEval gold run through a real purple agent and the real sandbox", () => {
  it("scores the embedded sample set pass@1 = 1.0 and reports progress as A2A_EVENT lines", async () => {
    const out = join(dir, "sample");
    const configFile = join(dir, "config.json");
    await writeFile(configFile, JSON.stringify({ benchmark: "humaneval", dataset: "sample", k: [1] }));
    // Exactly the green agent's command line.
    const r = spawnRunner(["--config-file", configFile, "--agent", gold.url, "--out", out, "--run-id", "gold-sample"]);
    children.push(r.child);
    const code = await r.exit;
    expect(code, r.stderr.join("")).toBe(0);
    expect(r.stdoutOther.filter((l) => l.trim() !== "")).toEqual([]); // stdout carries events only; logs go to stderr
    const names = r.events.map((e) => e.event);
    expect(names[0]).toBe("run_started");
    expect(names.filter((n) => n === "task_finished")).toHaveLength(12);
    const last = r.events.at(-1);
    expect(last).toMatchObject({
      event: "run_finished",
      results_path: join(out, "results.json"),
      events_path: join(out, "events.jsonl"),
      run_metadata_path: join(out, "run_metadata.json"),
    });
    const finished = r.events.filter((e) => e.event === "task_finished");
    expect(finished.at(-1)).toMatchObject({ done: 12, total: 12, passed_so_far: 12 });

    const results = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as Record<string, unknown>;
    expect(checkAgainst("results.schema.json", results)).toEqual([]);
    const agg = results["aggregate"] as Record<string, unknown>;
    expect(agg["pass_at_k"]).toEqual({ "pass@1": 1 });
    expect(agg).toMatchObject({
      accuracy: 1,
      passed: 12,
      failed: 0,
      timeouts: 0,
      errors: 0,
      total: 12,
      safety: 1,
      adaptability: 1,
    });
    expect(results["isolation"]).toMatchObject({ backend: "local", level: "bwrap" });
    const meta = JSON.parse(await readFile(join(out, "run_metadata.json"), "utf8")) as Record<string, unknown>;
    expect(meta["dataset"]).toMatchObject({ path: "sample" });
    expect((await readFile(join(out, "events.jsonl"), "utf8")).trim().split("\n")).toHaveLength(r.events.length);
  });

  it("stops on SIGTERM with exit 143 and a checkpoint; --resume finishes only the rest", async () => {
    const out = join(dir, "term");
    const r = spawnRunner(["--agent", slow.url, "--out", out, "--run-id", "term", "--concurrency", "1"]);
    children.push(r.child);
    await r.waitFor((e) => e.event === "checkpoint_written" && (e.done ?? 0) >= 2);
    const t0 = Date.now();
    r.child.kill("SIGTERM");
    expect(await r.exit).toBe(143);
    // Fewer than all rows are checkpointed (below): it stopped, not finished; the bound is for a slow machine.
    expect(Date.now() - t0).toBeLessThan(30_000);
    const ck = await readCheckpoint(join(out, "checkpoint.jsonl"));
    expect(ck.rows.length).toBeGreaterThanOrEqual(2);
    expect(ck.rows.length).toBeLessThan(12);
    expect(existsSync(join(out, "results.json"))).toBe(false);

    const again = spawnRunner([
      "--agent",
      slow.url,
      "--out",
      out,
      "--run-id",
      "term",
      "--concurrency",
      "2",
      "--resume",
    ]);
    children.push(again.child);
    expect(await again.exit, again.stderr.join("")).toBe(0);
    const started = again.events
      .filter((e) => e.event === "task_started")
      .map((e) => (e as { task_id: string }).task_id);
    expect(started.sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `A2ABench/${i}`)
        .filter((id) => !ck.rows.some((row) => row.id === id))
        .sort(),
    );
    const results = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as {
      aggregate: { pass_at_k: unknown; total: number };
    };
    expect(results.aggregate).toMatchObject({ pass_at_k: { "pass@1": 1 }, total: 12 });

    // The same checkpoint with another seed is refused, naming the difference (exit 1, nothing run).
    const other = spawnRunner(["--agent", slow.url, "--out", out, "--run-id", "term", "--resume", "--seed", "5"]);
    children.push(other.child);
    expect(await other.exit).toBe(1);
    expect(other.stderr.join("")).toMatch(/seed: checkpoint 0, now 5/);
  });

  it("stops when its lifeline closes (the green agent died), not when its stdin does", async () => {
    // Answers two questions, then holds every later one until its asker goes: the run cannot end by itself.
    let asked = 0;
    const gate = createGoldSolver();
    const stalling = await serveOnLoopback((card) =>
      createPurpleApp({
        card,
        solver: {
          mode: "gold-stalling",
          solve: (input, signal) =>
            ++asked <= 2
              ? gate.solve(input, signal)
              : new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("gone")))),
        },
      }),
    );
    try {
      const out = join(dir, "stdin");
      const r = spawnRunner(["--agent", stalling.url, "--out", out, "--concurrency", "1"]);
      children.push(r.child);
      await r.waitFor((e) => e.event === "task_finished");
      r.child.stdin?.end();
      // Still running after its stdin closed: the second item finishes.
      await r.waitFor((e) => e.event === "task_finished" && e.i === 1);
      (r.child.stdio[LIFELINE_FD] as Writable).end();
      expect(await r.exit).toBe(143);
      expect(existsSync(join(out, "checkpoint.jsonl"))).toBe(true);
    } finally {
      await stalling.close();
    }
  });

  it("rejects an unknown benchmark with the list of known ones (exit 2)", async () => {
    const child = spawn(process.execPath, [cliEntry, "run", "nope"], { stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(2);
    expect(err).toMatch(/unknown benchmark "nope" \(known: humaneval/);
  });

  it.skipIf(!hasFull)(
    `scores the official 164 gold solutions pass@1 = 1.0 (skipped when ${fullDatasetPath()} is absent)`,
    async () => {
      const out = join(dir, "full");
      const logger = silentLogger();
      const outcome = await executeRun(
        createHumanEvalBenchmark(),
        testRunOptions({
          benchmark: "humaneval",
          dataset: "humaneval-full",
          agent: gold.url,
          run_id: "full",
          out,
          seed: 0,
          n: 1,
          k: [1],
          per_task_timeout_seconds: 3,
          concurrency: 4,
        }),
        {
          logger,
          createSandbox: () => createSandbox({ backend: "local", logger }),
          createParticipant: (o) => createA2AParticipant({ url: o.agent, timeoutMs: 60_000, logger }),
        },
      );
      expect(outcome.exitCode).toBe(0);
      const rows = outcome.results?.rows as HumanEvalRow[];
      const bad = rows
        .filter((r) => r.status !== "passed")
        .map((r) => `${r.id}: ${r.status} ${r.samples[0]?.stderr_tail ?? ""}`);
      expect(bad).toEqual([]);
      expect(rows).toHaveLength(164);
      expect((outcome.results?.["aggregate"] as { pass_at_k: unknown }).pass_at_k).toEqual({ "pass@1": 1 });
    },
    120_000,
  );
});
