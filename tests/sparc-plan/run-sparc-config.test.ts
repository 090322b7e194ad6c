import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import {
  runSparcConfig,
  runHumanEval,
  runSWEBench,
  installPackages,
  PackageSourceUnreachableError,
  type BenchmarkConfig,
} from "../../src/index.js";
import { checkAgainst } from "../../src/util/schema.js";
import { ValidationError } from "../../src/util/errors.js";
import { packageRoot } from "../../src/util/package-root.js";
import { closedPort } from "../support/closed-port.js";

const root = await mkdtemp(join(tmpdir(), "sparc-api-"));
afterAll(async () => rm(root, { recursive: true, force: true }));

const mixed: BenchmarkConfig = {
  type: "humaneval",
  name: "api-mixed",
  testCases: [
    { id: "py-ok", input: "print(6 * 7)", expectedOutput: "42", language: "python" },
    {
      id: "js-wrong",
      input: "console.log([3, 1, 2].sort().join(' '))",
      expectedOutput: "3 2 1",
      language: "javascript",
    },
    {
      id: "ts-ok",
      input: "const greet = (n: string): string => `hi ${n}`;\nconsole.log(greet('ts'));",
      expectedOutput: "hi ts",
      language: "typescript",
    },
    { id: "py-slow", input: "import time\ntime.sleep(20)", expectedOutput: "never", timeout: 1000 },
  ],
};

describe("library API (src/index.ts)", () => {
  it("runSparcConfig runs a mixed config through the runner and returns the plan's BenchmarkResult", async () => {
    const out = join(root, "run1");
    const outputFile = join(root, "copy", "result.json");
    const result = await runSparcConfig(mixed, { out, outputFile, sparcMetrics: true, concurrency: 2 });
    expect(checkAgainst("sparc_benchmark_result.schema.json", result)).toEqual([]);
    expect(result).toMatchObject({
      benchmarkType: "humaneval",
      benchmarkName: "api-mixed",
      totalTests: 4,
      passedTests: 2,
      failedTests: 2,
      skippedTests: 0,
    });
    const byId = Object.fromEntries(result.testResults.map((t) => [t.testId, t]));
    expect(byId["py-ok"]?.status).toBe("passed");
    expect(byId["js-wrong"]?.status).toBe("failed");
    expect(byId["ts-ok"]?.status).toBe("passed");
    expect(byId["py-slow"]).toMatchObject({ status: "timeout", passed: false, error: "timed out after 1000 ms" });
    expect(result.metrics.accuracy).toBeCloseTo(0.5);
    expect(result.planMetrics?.accuracy).toBeCloseTo(0.5);
    // The outputFile copy and the run's own file say the same; results.json carries the aggregate.
    expect(JSON.parse(await readFile(outputFile, "utf8"))).toEqual(result);
    const results = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as {
      aggregate: Record<string, unknown>;
      rows: unknown[];
    };
    expect(results.rows).toHaveLength(4);
    expect(results.aggregate["accuracy"]).toBeCloseTo(0.5);
    expect(results.aggregate["failure_modes"]).toEqual({ model_wrong_output: 1, timeout: 1 });
    expect(existsSync(join(out, "sparc_config.json"))).toBe(true);
  }, 60_000);

  it("the deprecated runSWEBench and runHumanEval run the config under their type's defaults and label", async () => {
    const cfg: BenchmarkConfig = {
      type: "humaneval",
      name: "one",
      testCases: [{ id: "a", input: "print('x')", expectedOutput: "x" }],
    };
    const swe = await runSWEBench(cfg, { out: join(root, "swe") });
    expect(swe.benchmarkType).toBe("swebench");
    const rows = (
      JSON.parse(await readFile(join(root, "swe", "results.json"), "utf8")) as { rows: Array<Record<string, unknown>> }
    ).rows;
    expect(rows[0]?.["timeout_ms"]).toBe(60_000);
    // The plan's stream/verbose: progress events and logs on streams the caller gives.
    const events = new PassThrough();
    const logs = new PassThrough();
    let eventText = "";
    let logText = "";
    events.on("data", (d: Buffer) => (eventText += d.toString()));
    logs.on("data", (d: Buffer) => (logText += d.toString()));
    const he = await runHumanEval(
      { ...cfg, type: "redcode" },
      { out: join(root, "he"), stream: true, eventStream: events, verbose: true, logStream: logs },
    );
    expect(he.benchmarkType).toBe("humaneval");
    expect(eventText).toContain('A2A_EVENT:{"event":"task_finished","task_id":"a"');
    expect(eventText).toContain('A2A_EVENT:{"event":"run_finished"');
    expect(logText).toContain('"component":"sparc"');
  }, 60_000);

  it("rejects a bad config naming the case and key, before running anything", async () => {
    const bad = {
      type: "humaneval",
      name: "bad",
      testCases: [{ id: "t1", input: "print(1)", expectedOutput: "1", language: "ruby" }],
    };
    const err = await runSparcConfig(bad as unknown as BenchmarkConfig, { out: join(root, "bad") }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(/testCases\[0\] \(id "t1"\): key "language": must be one of/);
    expect(existsSync(join(root, "bad"))).toBe(false);
  });

  it("an unreachable package source fails the run before any test case runs", async () => {
    const out = join(root, "unreachable");
    const registry = `http://127.0.0.1:${await closedPort()}/`;
    const err = await runSparcConfig(mixed, {
      out,
      packages: { javascript: ["is-odd"] },
      npmRegistry: registry,
      cacheDir: join(root, "cache"),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackageSourceUnreachableError);
    expect((err as Error).message).toContain(`javascript package "is-odd": package source ${registry} is unreachable`);
    expect(existsSync(join(out, "results.json"))).toBe(false);
    const events = existsSync(join(out, "events.jsonl")) ? await readFile(join(out, "events.jsonl"), "utf8") : "";
    expect(events).not.toContain("task_started");
  });

  it("installPackages keeps the plan's signature and reports an unreachable index", async () => {
    expect(await installPackages([], "python")).toBeNull();
    const index = `http://127.0.0.1:${await closedPort()}/simple/`;
    await expect(
      installPackages(["pytest"], "python", { pipIndexUrl: index, cacheDir: join(root, "cache") }),
    ).rejects.toThrow(`cannot install python package "pytest": package source ${index} is unreachable`);
  });
});

const distEntry = join(packageRoot, "dist", "index.js");
if (!existsSync(distEntry))
  process.stderr.write(`[sparc] SKIP built-entry test: ${distEntry} is missing (run npm run build)\n`);

describe('built package entry (dist/index.js, imported as "a2a-bench")', () => {
  it.skipIf(!existsSync(distEntry))(
    "exports the API and runs a config",
    async () => {
      const script = `
      import { runBenchmark, runSparcConfig, runHumanEval, runSWEBench, runRedCode, InfrastructureError } from "a2a-bench";
      if (![runBenchmark, runHumanEval, runSWEBench, runRedCode, InfrastructureError].every((f) => typeof f === "function")) throw new Error("missing export");
      const r = await runSparcConfig({ type: "redcode", name: "dist", testCases: [
        { id: "js", language: "javascript", input: "console.log(1 + 1)", expectedOutput: "2" },
        { id: "py", input: "print('no')", expectedOutput: "yes" } ] }, { out: process.argv[1] });
      process.stdout.write(JSON.stringify({ type: r.benchmarkType, passed: r.passedTests, failed: r.failedTests }));
    `;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ["--input-type=module", "-e", script, join(root, "dist-run")],
        {
          cwd: packageRoot,
          timeout: 60_000,
        },
      );
      expect(JSON.parse(stdout)).toEqual({ type: "redcode", passed: 1, failed: 1 });
    },
    90_000,
  );
});
