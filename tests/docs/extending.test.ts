/**
 * docs/extending.md, tested: a benchmark (echo) and a sandbox backend
 * (subprocess), written as the page says (tests/fixtures/extending/), are
 * registered through the public registration functions and go through the
 * registry lookups, needs-participant, the CLIs' flag checks, preflight and the
 * engine; their schema fragments are what make the schemas agree with the
 * registries again. The page's code blocks are these files.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import {
  benchmarkDescriptors,
  benchmarkNames,
  getBenchmark,
  knownBenchmarks,
  registerBenchmark,
} from "../../src/benchmarks/index.js";
import { benchmarkNeedsParticipant } from "../../src/benchmarks/needs-participant.js";
import {
  createSandbox,
  registerSandboxBackend,
  sandboxBackendNames,
  sandboxBackends,
} from "../../src/sandbox/index.js";
import { isFullIsolation } from "../../src/runner/isolation-policy.js";
import { executeRun } from "../../src/runner/run-benchmark.js";
import { testRunOptions } from "../support/run-options.js";
import { sandboxHiddenPaths } from "../../src/runner/sandbox-hidden-paths.js";
import type { RunOptions } from "../../src/runner/options.js";
import type { Participant } from "../../src/a2a/participant.js";
import { parsePreflightArgs } from "../../src/cli/preflight.js";
import { parseSmokeArgs } from "../../src/cli/smoke.js";
import { runPreflight, type PreflightDeps } from "../../src/preflight/run-preflight.js";
import { loadDatasetItems, probeSandbox, toolProber } from "../../src/preflight/default-probes.js";
import { resolveCommand } from "../../src/preflight/resolve-command.js";
import { resolveConfig } from "../../src/request-config/resolve.js";
import { createAjv } from "../../src/util/schema.js";
import { silentLogger } from "../../src/util/logger.js";
import { defaultScenarioDir, packageRoot } from "../../src/util/package-root.js";
import {
  backendSchemaMismatches,
  benchmarkSchemaMismatches,
  readRegistrySchemas,
  withFragment,
} from "../support/registry-schemas.js";
import { echo } from "../fixtures/extending/echo/descriptor.js";
import { subprocessBackend } from "../fixtures/extending/subprocess/descriptor.js";

const FIXTURES = join(packageRoot, "tests", "fixtures", "extending");
const fragment = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(FIXTURES, name, "schema-fragment.json"), "utf8")) as Record<string, unknown>;

let unregister: Array<() => void> = [];
beforeAll(() => {
  unregister = [registerBenchmark(echo), registerSandboxBackend(subprocessBackend)];
});
afterAll(() => {
  for (const u of unregister) u();
});

/** A participant that answers every echo item with the right program, in process. */
const participant: Participant = {
  url: "http://127.0.0.1:9/echo-participant",
  async ask(req) {
    return { text: `print(${JSON.stringify(String(req.data?.["word"]))})\n`, data: [], state: "completed" };
  },
  async close() {},
};

function sink(): { stream: Writable; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  return { stream, text: () => text };
}

describe("adding a benchmark and a sandbox backend (docs/extending.md)", () => {
  it("the registries know them: lookup, runner list, needs-participant, the CLIs' flags", async () => {
    expect(benchmarkNames()).toContain("echo");
    expect(knownBenchmarks()).toContain("echo");
    expect((await getBenchmark("echo")).name).toBe("echo");
    expect(benchmarkNeedsParticipant({ benchmark: "echo" })).toBe(true);
    expect(sandboxBackendNames()).toContain("subprocess");
    expect(isFullIsolation("process")).toBe(false);
    expect(parsePreflightArgs(["--benchmark", "echo", "--sandbox", "subprocess"])).toMatchObject({
      benchmark: "echo",
      sandbox: "subprocess",
    });
    expect(parseSmokeArgs(["--benchmark", "echo"]).benchmark).toBe("echo");
  });

  it("the schemas do not know them until their fragments are added", () => {
    const schemas = readRegistrySchemas();
    expect(benchmarkSchemaMismatches(schemas, benchmarkDescriptors())).toEqual([
      'assessment_request.schema.json benchmark enum lacks "echo"',
      'results.schema.json allOf (if benchmark … then rows) lacks "echo"',
      "results.schema.json has no $defs/echo_row (echo's rows)",
    ]);
    expect(backendSchemaMismatches(schemas, sandboxBackends())).toEqual([
      'assessment_request.schema.json sandbox enum lacks "subprocess"',
      'results.schema.json isolation.backend enum lacks "subprocess"',
      'results.schema.json isolation.level enum lacks "process"',
    ]);
    // So a request naming them is refused, with the schema's list.
    const refused = resolveConfig({ benchmark: "echo", sandbox: "subprocess" });
    expect(refused.ok).toBe(false);
    const both = withFragment(withFragment(schemas, fragment("echo")), fragment("subprocess"));
    expect(benchmarkSchemaMismatches(both, benchmarkDescriptors())).toEqual([]);
    expect(backendSchemaMismatches(both, sandboxBackends())).toEqual([]);
  });

  it("runs through the engine end to end (local backend); its rows are its fragment's echo_row", async () => {
    const out = await mkdtemp(join(tmpdir(), "extending-echo-"));
    try {
      // Resolved as the engine gets it (schema defaults applied); echo is named after resolving, since the request
      // schema knows it only once its fragment is added (the test above).
      const options: RunOptions = {
        ...testRunOptions({ benchmark: "humaneval", run_id: "echo-1", out, agent: participant.url, concurrency: 2 }),
        benchmark: "echo",
      };
      const outcome = await executeRun(await getBenchmark("echo"), options, {
        logger: silentLogger(),
        createSandbox: (o) =>
          createSandbox({ backend: "local", logger: silentLogger(), hiddenPaths: sandboxHiddenPaths(o) }),
        createParticipant: () => participant,
      });
      expect(outcome).toMatchObject({ exitCode: 0, status: "ok" });
      const results = JSON.parse(await readFile(outcome.paths.results, "utf8")) as Record<string, unknown>;
      expect(results["rows"]).toEqual([
        expect.objectContaining({ id: "echo/alpha", passed: true, printed: "alpha" }),
        expect.objectContaining({ id: "echo/beta", passed: true, printed: "beta" }),
        expect.objectContaining({ id: "echo/gamma", passed: true, printed: "gamma" }),
      ]);
      expect(results["aggregate"]).toMatchObject({ accuracy: 1 });
      // With the fragment added, the results schema checks echo's rows against echo_row.
      const validate = createAjv().compile(withFragment(readRegistrySchemas(), fragment("echo")).results);
      expect(validate(results), JSON.stringify(validate.errors)).toBe(true);
      const rows = results["rows"] as Array<Record<string, unknown>>;
      const withoutPrinted = { ...results, rows: rows.map(({ printed: _printed, ...row }) => row) };
      expect(validate(withoutPrinted)).toBe(false);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it("on the new backend the engine runs the items but refuses to write results the schema does not allow", async () => {
    const out = await mkdtemp(join(tmpdir(), "extending-subprocess-"));
    try {
      const options: RunOptions = {
        ...testRunOptions({ benchmark: "humaneval", run_id: "echo-2", out, agent: participant.url }),
        benchmark: "echo",
      };
      await expect(
        executeRun(await getBenchmark("echo"), options, {
          logger: silentLogger(),
          createSandbox: () => createSandbox({ backend: "subprocess", logger: silentLogger() }),
          createParticipant: () => participant,
        }),
      ).rejects.toThrow(
        /results\.json would not match.*\/isolation\/backend: must be one of \["local","e2b","docker"\]/s,
      );
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it("preflight lists them: dataset, sandbox (weak), tools, runner", async () => {
    const deps: PreflightDeps = {
      nodeVersion: process.version,
      env: process.env,
      loadDataset: loadDatasetItems,
      probeSandbox,
      probeTools: toolProber(process.env),
      probeParticipant: async () => {},
      knownBenchmarks,
      resolveCommand: (p) => resolveCommand(p, process.env),
      cliEntry: process.execPath, // any existing file
      portFree: async () => true,
      portHolder: async () => ({ kind: "unknown" }),
      cardServed: async () => false,
      smoke: async () => ({
        exitCode: 0,
        finalState: "completed",
        responsePath: "r.json",
        bundlePath: "b.json",
        recordPath: undefined,
        bundle: {},
        problems: [],
        methods: ["message/stream"],
      }),
    };
    const options = parsePreflightArgs([
      "--scenario",
      defaultScenarioDir,
      "--benchmark",
      "echo",
      "--sandbox",
      "subprocess",
    ]);
    const out = sink();
    const report = await runPreflight(options, deps, out.stream);
    const byName = Object.fromEntries(report.results.map((r) => [r.name, r]));
    // The dataset is loaded with the run's options resolved against the request schema, which names echo only
    // once its fragment is added (the schema test above): until then preflight says so, by the schema's words.
    expect(byName["dataset"]).toMatchObject({ ok: false });
    expect(byName["dataset"]?.detail).toContain('/benchmark: must be one of ["humaneval"');
    expect(byName["sandbox"]).toMatchObject({ ok: false });
    expect(byName["sandbox"]?.detail).toContain("subprocess sandbox works but isolation=process is weak");
    expect(byName["tools"]).toMatchObject({ ok: true, detail: "echo needs python3: all found" });
    expect(byName["sandbox_env"]).toMatchObject({ ok: true, detail: "none needed (sandbox=subprocess)" });
    expect(byName["runner"]).toMatchObject({ ok: true });
    expect(byName["runner"]?.detail).toContain("`a2a-bench run echo`");
    expect(report.ready).toBe(false);
    // Weak isolation allowed, only the missing schema fragment stands between echo and a run.
    const allowed = await runPreflight({ ...options, allowWeakIsolation: true }, deps, sink().stream);
    expect(allowed.results.filter((r) => !r.ok).map((r) => r.name)).toEqual(["dataset"]);
  });

  it("the page's code blocks are these files, and its registry lines are the registries' with one entry added", () => {
    const page = readFileSync(join(packageRoot, "docs", "extending.md"), "utf8");
    const examples = [...page.matchAll(/<!-- example: (\S+) -->\n```\w+\n([\s\S]*?)```/g)];
    expect(examples.map((m) => m[1])).toEqual([
      "echo/descriptor.ts",
      "echo/definition.ts",
      "echo/schema-fragment.json",
      "subprocess/descriptor.ts",
      "subprocess/schema-fragment.json",
    ]);
    for (const [, file, block] of examples) {
      // In the tree the files sit in src/benchmarks/echo/ and src/sandbox/subprocess/: their imports are relative to there.
      const text = readFileSync(join(FIXTURES, file!), "utf8")
        .replaceAll('"../../../../src/benchmarks/', '"../')
        .replaceAll('"../../../../src/sandbox/', '"../')
        .replaceAll('"../../../../src/', '"../../');
      expect(block, file).toBe(text);
    }
    const line = (re: RegExp): string => re.exec(page)?.[0] ?? "(missing in docs/extending.md)";
    const benchmarksLine = line(/const BUILT_IN_BENCHMARKS = \[.*\] as const;/);
    const backendsLine = line(/const BUILT_IN_BACKENDS = \[.*\] as const;/);
    expect(readFileSync(join(packageRoot, "src/benchmarks/index.ts"), "utf8")).toContain(
      benchmarksLine.replace(", echo]", "]"),
    );
    expect(readFileSync(join(packageRoot, "src/sandbox/registry.ts"), "utf8")).toContain(
      backendsLine.replace(", subprocessBackend]", "]"),
    );
    expect(benchmarksLine).toContain(", echo]");
    expect(backendsLine).toContain(", subprocessBackend]");
  });
});
