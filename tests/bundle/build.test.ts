import { afterEach, describe, expect, test } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBundle, bundleSummary } from "../../src/bundle/build.js";
import { readRunFiles, type ArtifactPaths } from "../../src/bundle/run-files.js";
import { validateBundle } from "../../src/bundle/validate.js";
import type { RunnerOutcome } from "../../src/process/outcome.js";

const outcome: RunnerOutcome = {
  exitCode: 0,
  signal: null,
  terminationReason: null,
  timedOut: false,
  isCanceled: false,
  isForcefullyTerminated: false,
  spawnError: null,
  startedAtMs: 1_700_000_000_000,
  finishedAtMs: 1_700_000_002_500,
  durationMs: 2_500,
  outputTail: [],
};

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A work dir with the three artifacts, results.json holding `results`. */
function workDir(results: unknown): ArtifactPaths {
  const dir = mkdtempSync(join(tmpdir(), "bundle-"));
  dirs.push(dir);
  const paths = {
    results_path: join(dir, "results.json"),
    run_metadata_path: join(dir, "run_metadata.json"),
    events_path: join(dir, "events.jsonl"),
  };
  writeFileSync(paths.results_path, typeof results === "string" ? results : JSON.stringify(results));
  writeFileSync(paths.run_metadata_path, "{}");
  writeFileSync(paths.events_path, "");
  return paths;
}

async function bundleOf(results: unknown, eventAggregate?: Record<string, unknown>) {
  const artifacts = workDir(results);
  const bundle = buildBundle({
    benchmark: "redcode",
    runId: "r1",
    config: { benchmark: "redcode" },
    participants: { agent: "http://a/" },
    outcome,
    artifacts,
    files: await readRunFiles(artifacts),
    eventAggregate,
  });
  expect(validateBundle(bundle)).toEqual([]);
  return bundle;
}

// The rows below carry only the common keys ($defs/row), so the file names a benchmark without its own
// row definition (a built-in benchmark's rows must match its $defs/<benchmark>_row).
const ours = (rows: unknown[], extra: Record<string, unknown> = {}) => ({
  schema_version: 1,
  benchmark: "generic",
  run_id: "r1",
  status: "ok",
  error: null,
  config: {},
  isolation: { backend: "local", level: "bwrap", warnings: [] },
  dataset: { path: "sample", sha256: "a".repeat(64) },
  rows,
  aggregate: { accuracy: 0.5, failure_modes: {} },
  ...extra,
});

describe("buildBundle from our results file", () => {
  test("a partial run (its time budget ran out) is a score over the judged items, marked partial, the rest listed as not run", async () => {
    const b = await bundleOf(
      ours([{ id: "a", status: "passed", passed: true, elapsed_seconds: 1, error: null }], {
        partial: true,
        not_run: ["b", "c"],
      }),
    );
    expect(b.status).toBe("ok");
    expect(b.partial).toBe(true);
    expect(b.not_run).toEqual(["b", "c"]);
    // Not run is no failure: no error, no failure mode; the count is shown beside the rates.
    expect(b.errors).toEqual([]);
    expect(b.metrics).toEqual({ accuracy: 0.5, failure_modes: {}, items_not_run: 2 });
    expect(bundleSummary(b)).toMatch(/^redcode run r1: PARTIAL \(time budget ran out\), exit 0, .*2 item\(s\) not run/);
    // A whole run carries neither key.
    const whole = await bundleOf(ours([{ id: "a", status: "passed", passed: true, elapsed_seconds: 1, error: null }]));
    expect("partial" in whole || "not_run" in whole || "items_not_run" in whole.metrics).toBe(false);
  });

  test("failed items become errors (id, error, timed out) counted by failure mode; isolation from the file", async () => {
    const b = await bundleOf(
      ours([
        { id: "a", status: "rejected", passed: true, elapsed_seconds: 1, error: null },
        {
          id: "b",
          status: "error",
          passed: false,
          elapsed_seconds: 2,
          failure_mode: "infrastructure_sandbox",
          error: "sandbox: boom",
        },
        {
          id: "c",
          status: "execution_failure",
          passed: true,
          elapsed_seconds: 3,
          error: null,
          timed_out: true,
          score: 1,
        },
        { id: "d", status: "timeout", passed: false, elapsed_seconds: 4, failure_mode: "Not A Mode" },
      ]),
      { accuracy: 0.5 },
    );
    expect(b.status).toBe("ok");
    expect(b.isolation).toEqual({ backend: "local", level: "bwrap", warnings: [] });
    expect(b.metrics).toEqual({
      accuracy: 0.5,
      failure_modes: { infrastructure_sandbox: 1, timeout: 2 },
    });
    const row = { plan_attempts: null, sim_attempts: null, score: {} };
    expect(b.errors).toEqual([
      { package_id: "b", error: "sandbox: boom", timed_out: false, elapsed_seconds: 2, ...row },
      { package_id: "c", error: "timed out", timed_out: true, elapsed_seconds: 3, ...row },
      { package_id: "d", error: "timed out", timed_out: true, elapsed_seconds: 4, ...row },
    ]);
  });

  test("the runner's own failure-mode counts are kept; the file's aggregate stands in for a missing event", async () => {
    const b = await bundleOf(
      ours(
        [
          {
            id: "b",
            status: "failed",
            passed: false,
            elapsed_seconds: 2,
            failure_mode: "model_wrong_answer",
            error: "x",
          },
        ],
        {
          aggregate: { accuracy: 0, failure_modes: { model_wrong_answer: 3, bogus: 1 } },
        },
      ),
    );
    expect(b.metrics).toEqual({ accuracy: 0, failure_modes: { model_wrong_answer: 3 } });
    expect(b.errors).toHaveLength(1);
  });

  test("status error: the file's verdict with its message and code", async () => {
    const b = await bundleOf(
      ours([], { status: "error", error: { code: "E_TOOLS_MISSING", message: "pytest missing" } }),
    );
    expect(b.status).toBe("error");
    expect(b.status_reason).toBe("pytest missing [E_TOOLS_MISSING]");
  });

  test("a results file that matches no schema is a results problem, not a guess", async () => {
    const b = await bundleOf({ aggregate: { accuracy: 1 }, items: [{ task_id: "t", error: "x" }] });
    expect(b.status).toBe("error");
    expect(b.status_reason).toMatch(/^results file does not match schemas\/results\.schema\.json: /);
    expect(b.metrics.failure_modes).toEqual({ infrastructure_results_unreadable: 1 });
    expect(b.errors).toHaveLength(1);
    expect(b.isolation).toBeNull();
  });

  test("results that are not JSON are unreadable", async () => {
    const b = await bundleOf("{not json");
    expect(b.status).toBe("error");
    expect(b.status_reason).toMatch(/^results file unreadable: /);
  });
});

describe("buildBundle from smi_bench's results (schema_version 2)", () => {
  const smi = {
    schema_version: 2,
    aggregate: { avg_hit_rate: 0.25, errors: 1 },
    packages: [
      {
        package_id: "0xa",
        score: { targets: 4 },
        error: null,
        elapsed_seconds: 1.5,
        timed_out: false,
        plan_attempts: 1,
        sim_attempts: 1,
      },
      {
        package_id: "0xb",
        score: { targets: 2 },
        error: "simulation failed",
        elapsed_seconds: 2.5,
        timed_out: false,
        plan_attempts: 2,
        sim_attempts: 2,
      },
      { package_id: "0xc", timed_out: true, elapsed_seconds: -1 },
    ],
  };

  test("packages become items once, at the edge: errors keep smi's record, metrics say the layout and count", async () => {
    const b = await bundleOf(smi);
    expect(b.status).toBe("ok");
    expect(b.isolation).toBeNull();
    expect(b.metrics).toEqual({
      avg_hit_rate: 0.25,
      errors: 1,
      results_schema_version: 2,
      samples: 3,
      failure_modes: { other_error: 1, timeout: 1 },
    });
    expect(b.errors).toEqual([
      {
        package_id: "0xb",
        error: "simulation failed",
        timed_out: false,
        elapsed_seconds: 2.5,
        plan_attempts: 2,
        sim_attempts: 2,
        score: { targets: 2 },
      },
      {
        package_id: "0xc",
        error: "timed out",
        timed_out: true,
        elapsed_seconds: null,
        plan_attempts: null,
        sim_attempts: null,
        score: {},
      },
    ]);
  });

  test("a package without its id makes the file unusable", async () => {
    const b = await bundleOf({ schema_version: 2, packages: [{ error: "x" }] });
    expect(b.status_reason).toMatch(/^results file does not match schemas\/smi_results\.schema\.json: .*package_id/);
  });
});
