/**
 * The package entry (src/index.ts) as a library user meets it: the engine
 * (`runBenchmark`) from a request config, the registry, the no-score error,
 * and the SPARC functions reaching the engine without the CLI's flag parser.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";
import { SAMPLE_PROBLEMS } from "../src/benchmarks/humaneval/sample-dataset.js";
import type { Sandbox } from "../src/sandbox/types.js";

// Count registry look-ups, and make the CLI's flag resolver unusable: the library must not go through it.
const lookups = vi.hoisted(() => ({ count: 0 }));
vi.mock("../src/benchmarks/index.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../src/benchmarks/index.js")>();
  return {
    ...real,
    getBenchmark: (name: string) => {
      lookups.count += 1;
      return real.getBenchmark(name);
    },
  };
});
vi.mock("../src/runner/run-args.js", () => ({
  resolveRunArgs: () => {
    throw new Error("the library went through the CLI's flag resolver");
  },
  parseRunArgs: () => {
    throw new Error("the library went through the CLI's flag parser");
  },
}));

const {
  runBenchmark,
  runSparcConfig,
  getBenchmark,
  knownBenchmarks,
  InfrastructureError,
  ValidationError,
  UsageError,
  BenchError,
} = await import("../src/index.js");

const dir = mkdtempSync(join(tmpdir(), "library-entry-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeEach(() => {
  lookups.count = 0;
});

/** Gold completions for the sample problems: a humaneval run that needs no participant. */
function goldPredictions(): string {
  const file = join(dir, "gold.jsonl");
  writeFileSync(
    file,
    SAMPLE_PROBLEMS.map((p) => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution })).join("\n"),
  );
  return file;
}

describe("runBenchmark (the engine's library entry)", () => {
  it("runs a minimal config with the schema's defaults, looking the benchmark up once", async () => {
    const out = join(dir, "gold");
    const run = await runBenchmark(
      { benchmark: "humaneval", predictions: goldPredictions(), samples: 2, run_id: "lib-gold", concurrency: 1 },
      { out },
    );
    expect(lookups.count).toBe(1);
    expect(run.results).toMatchObject({ status: "ok", run_id: "lib-gold", benchmark: "humaneval" });
    expect(run.results.rows).toHaveLength(2);
    expect(run.results.rows.every((r) => r.passed)).toBe(true);
    // The resolved config, defaults included, is what the run used and recorded.
    expect(run.options).toMatchObject({ per_task_timeout_seconds: 3, agent_timeout_seconds: 120, seed: 0, n: 1 });
    expect(run.results.config).toEqual(omitOut(run.options));
    expect(run.paths.results).toBe(join(out, "results.json"));
    expect(JSON.parse(readFileSync(run.paths.results, "utf8"))).toMatchObject({ run_id: "lib-gold" });
  }, 60_000);

  it("our side failing is an InfrastructureError: no score, the reason in results.json", async () => {
    const out = join(dir, "weak");
    const weak: Sandbox = {
      backend: "local",
      isolation: "none",
      warnings: [],
      capabilities: new Set(),
      exec: () => Promise.reject(new Error("not to be called")),
      execMany: () => Promise.reject(new Error("not to be called")),
      close: () => Promise.resolve(),
    };
    const err = await runBenchmark(
      { benchmark: "humaneval", predictions: goldPredictions(), samples: 1, run_id: "lib-weak" },
      { out, requireFullIsolation: true, createSandbox: () => weak },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InfrastructureError);
    expect(err).toBeInstanceOf(BenchError);
    expect((err as InstanceType<typeof InfrastructureError>).code).toBe("E_ISOLATION_WEAK");
    expect(JSON.parse(readFileSync(join(out, "results.json"), "utf8"))).toMatchObject({
      status: "error",
      error: { code: "E_ISOLATION_WEAK" },
    });
  }, 60_000);

  it("refuses a bad config with a ValidationError naming every problem, before anything is written", async () => {
    const out = join(dir, "bad");
    const err = await runBenchmark({ benchmark: "humaneval", per_task_timeout_seconds: -1, bogus: 1 } as never, {
      out,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).problems.join("\n")).toMatch(/per_task_timeout_seconds/);
    expect((err as Error).message).toMatch(/unknown key "bogus"/);
    expect(lookups.count).toBe(0);
    expect(existsSync(out)).toBe(false);
  });

  it("a named participant beside a key that replaces it is refused (the same rule as the CLI and the green agent)", async () => {
    const err = await runBenchmark(
      { benchmark: "humaneval", agent: "http://127.0.0.1:9/", predictions: "p.jsonl" },
      {
        out: join(dir, "conflict"),
      },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(/agent and predictions cannot be given together/);
  });

  it("a benchmark without a registered plug-in is a UsageError naming the known ones", async () => {
    const err = await runBenchmark({ benchmark: "smi-inhabit" }, { out: join(dir, "smi") }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain(knownBenchmarks().join(", "));
  });
});

describe("the registry through the entry", () => {
  it("lists and returns the registered plug-ins", async () => {
    expect(knownBenchmarks()).toEqual(expect.arrayContaining(["humaneval", "redcode", "sparc", "swebench"]));
    expect((await getBenchmark("redcode")).name).toBe("redcode");
  });
});

describe("runSparcConfig", () => {
  it("runs a SPARC config through the engine's entry (never the CLI's flag resolver), one registry look-up", async () => {
    const out = join(dir, "sparc");
    const result = await runSparcConfig(
      {
        type: "redcode",
        name: "entry",
        testCases: [
          { id: "ok", input: "print(6 * 7)", expectedOutput: "42" },
          { id: "no", input: "print('no')", expectedOutput: "yes" },
        ],
      },
      { out, runId: "sparc-entry", concurrency: 1 },
    );
    expect(result).toMatchObject({ benchmarkType: "redcode", passedTests: 1, failedTests: 1 });
    expect(lookups.count).toBe(1);
    expect(JSON.parse(readFileSync(join(out, "results.json"), "utf8"))).toMatchObject({ run_id: "sparc-entry" });
  }, 60_000);
});

function omitOut<T extends { out: string }>(o: T): Omit<T, "out"> {
  const { out: _out, ...rest } = o;
  return rest;
}
