/**
 * The trial of docs/extending.md, repeated: in a copy of this checkout, `a2a-bench new benchmark` and
 * `new backend` write their folders and registry lines, the build's schema step takes them in, the new
 * files pass the gate of src/ (tsc, ESLint, Prettier), their own tests pass, and the new benchmark runs on
 * the new backend through the engine and preflight. Nothing else of the copy is edited by hand.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Writable } from "node:stream";
import { format, resolveConfig } from "prettier";
import { packageRoot } from "../../src/util/package-root.js";
import { parseNewArgs, command as newCommand } from "../../src/cli/new.js";
import { scaffold } from "../../src/scaffold/scaffold.js";
import type { Participant } from "../../src/a2a/shared/participant.js";

const run = promisify(execFile);
const BIN = join(packageRoot, "node_modules", ".bin");
const BENCHMARK = "toy-bench";
const BACKEND = "toy-box";

let copy = "";
let written: string[] = [];

/** What a module of the copy exports (imported from the copy, so it sees the copy's registries). */
async function fromCopy(path: string): Promise<Record<string, unknown>> {
  return (await import(join(copy, path))) as Record<string, unknown>;
}

function sink(): Writable & { text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk, _enc, cb) {
      text += String(chunk);
      cb();
    },
  });
  return Object.assign(stream, { text: () => text });
}

beforeAll(async () => {
  copy = await mkdtemp(join(tmpdir(), "a2a-bench-scaffold-"));
  for (const entry of ["src", "schemas", "scenario_smi", "docs"])
    await cp(join(packageRoot, entry), join(copy, entry), { recursive: true });
  for (const file of ["package.json", "tsconfig.json", "eslint.config.js", ".prettierrc.json", ".prettierignore"])
    await cp(join(packageRoot, file), join(copy, file));
  await symlink(join(packageRoot, "node_modules"), join(copy, "node_modules"));
  const out = sink();
  const code = await newCommand.run(["benchmark", BENCHMARK, "--root", copy], {
    stdout: out,
    stderr: sink(),
    env: {},
  });
  expect(code).toBe(0);
  const backend = await scaffold("backend", BACKEND, copy);
  written = [...[...out.text().matchAll(/^wrote (\S+)$/gm)].map((m) => m[1]!), ...backend.files];
  expect(out.text()).toContain("registered in src/benchmarks/index.ts:");
  // The build's schema step, as `npm run build` runs it (scripts/generate-schemas.mjs), on the copy.
  const { writeRegistrySchemas } = (await fromCopy("src/registry-schemas/write-schemas.ts")) as {
    writeRegistrySchemas: (f: (text: string, path: string) => Promise<string>) => Promise<string[]>;
  };
  const changed = await writeRegistrySchemas(async (text, path) =>
    format(text, { ...(await resolveConfig(path)), filepath: path }),
  );
  expect(changed).toEqual(expect.arrayContaining(["assessment_request.schema.json", "results.schema.json"]));
}, 600_000);

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

describe("a2a-bench new", () => {
  it("parses its arguments purely and refuses bad names with clear errors", () => {
    expect(parseNewArgs(["benchmark", "toy-bench"], "/x")).toEqual({
      kind: "benchmark",
      name: "toy-bench",
      root: "/x",
    });
    expect(parseNewArgs(["backend", "my-box", "--root", "/y"])).toMatchObject({ kind: "backend", root: "/y" });
    expect(() => parseNewArgs(["widget", "x"])).toThrow("`new benchmark NAME` or `new backend NAME`");
    expect(() => parseNewArgs(["benchmark"])).toThrow("new benchmark: NAME is missing");
    expect(() => parseNewArgs(["benchmark", "Toy_Bench"])).toThrow(
      'benchmark name must be lower-case kebab-case (letters, digits, single dashes; a letter first), got "Toy_Bench"',
    );
    expect(() => parseNewArgs(["backend", "a--b"])).toThrow("backend name must be lower-case kebab-case");
    expect(() => parseNewArgs(["benchmark", "a", "b"])).toThrow("one NAME only");
    expect(() => parseNewArgs(["benchmark", "a", "--force"])).toThrow("unknown option --force");
  });

  it("writes the folder, a test and the one registry line; refuses a name taken or a folder there", async () => {
    expect(written).toEqual([
      `src/benchmarks/${BENCHMARK}/descriptor.ts`,
      `src/benchmarks/${BENCHMARK}/definition.ts`,
      `src/benchmarks/${BENCHMARK}/row-schema.ts`,
      `tests/benchmarks/${BENCHMARK}/definition.test.ts`,
      `src/sandbox/${BACKEND}/descriptor.ts`,
      `src/sandbox/${BACKEND}/${BACKEND}-sandbox.ts`,
      `tests/sandbox/${BACKEND}/${BACKEND}-sandbox.test.ts`,
    ]);
    const index = await readFile(join(copy, "src/benchmarks/index.ts"), "utf8");
    expect(index).toMatch(/^const BUILT_IN_BENCHMARKS = \[.*, toyBenchBenchmark\] as const;$/m);
    expect(index).toContain('import { toyBenchBenchmark } from "./toy-bench/descriptor.js";');
    const registry = await readFile(join(copy, "src/sandbox/registry.ts"), "utf8");
    expect(registry).toMatch(/^const BUILT_IN_BACKENDS = \[.*, toyBoxBackend\] as const;$/m);
    await expect(scaffold("benchmark", BENCHMARK, copy)).rejects.toThrow(
      `a benchmark called "${BENCHMARK}" is already registered in src/benchmarks/index.ts`,
    );
    await expect(scaffold("benchmark", "humaneval", copy)).rejects.toThrow("already registered");
    await cp(join(copy, "src/benchmarks/humaneval"), join(copy, "src/benchmarks/stray"), { recursive: true });
    await expect(scaffold("benchmark", "stray", copy)).rejects.toThrow("src/benchmarks/stray already exists");
    await rm(join(copy, "src/benchmarks/stray"), { recursive: true });
    await expect(scaffold("backend", "x", join(copy, "docs"))).rejects.toThrow("is not an a2a-bench checkout");
  });

  it("the files it writes pass the gate of src/: tsc, ESLint with its rules, Prettier", async () => {
    const gate = join(copy, "tsconfig.gate.json");
    await writeFile(gate, JSON.stringify({ extends: "./tsconfig.json", include: ["src", ...written] }));
    // Their output says what failed (a command's error carries it).
    await run(join(BIN, "tsc"), ["-p", gate, "--noEmit", "--pretty", "false"], { cwd: copy, maxBuffer: 1 << 24 }).catch(
      (err: { stdout?: string; message: string }) => {
        throw new Error(`${err.message}\n${err.stdout ?? ""}`);
      },
    );
    await run(join(BIN, "eslint"), written, { cwd: copy, maxBuffer: 1 << 24 });
    await run(join(BIN, "prettier"), ["--check", ...written], { cwd: copy });
  }, 900_000);

  it("its own tests pass in the copy", async () => {
    await writeFile(
      join(copy, "vitest.config.mjs"),
      'export default { test: { include: ["tests/**/*.test.ts"], pool: "forks", testTimeout: 600000 } };\n',
    );
    const { stdout } = await run(join(BIN, "vitest"), ["run", "--config", "vitest.config.mjs"], {
      cwd: copy,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      maxBuffer: 1 << 24,
    });
    expect(stdout).toMatch(/Tests\s+3 passed/);
  }, 900_000);

  it("the new benchmark runs on the new backend through the engine; results.json is checked by the schemas", async () => {
    const { getBenchmark, offeredInteractions } = (await fromCopy("src/benchmarks/index.ts")) as {
      getBenchmark: (n: string) => Promise<unknown>;
      offeredInteractions: unknown;
    };
    const { executeRun } = (await fromCopy("src/runner/run-benchmark.ts")) as {
      executeRun: (...a: unknown[]) => Promise<{ exitCode: number; status: string; paths: { results: string } }>;
    };
    const { resolveRunOptions } = (await fromCopy("src/runner/options.ts")) as {
      resolveRunOptions: (offered: unknown, c: object, o: object) => object;
    };
    const { createSandbox } = (await fromCopy("src/sandbox/index.ts")) as {
      createSandbox: (o: object) => Promise<unknown>;
    };
    const { silentLogger } = (await fromCopy("src/util/logger.ts")) as { silentLogger: () => unknown };
    const solutions: Record<string, string> = {
      add: "def add(a, b):\n    return a + b\n",
      reverse: "def reverse(s):\n    return s[::-1]\n",
      evens: "def evens(xs):\n    return [x for x in xs if x % 2 == 0]\n",
    };
    const participant: Participant = {
      url: "http://127.0.0.1:9/toy",
      async ask(req) {
        const fn = /^def (\w+)/.exec(req.text)![1]!;
        return { text: "```python\n" + solutions[fn]! + "```\n", data: [], state: "completed" };
      },
      async close() {},
    };
    const out = await mkdtemp(join(tmpdir(), "scaffold-run-"));
    try {
      // Resolved by the copy's request schema, which names both only through the build's schema step.
      const options = resolveRunOptions(
        offeredInteractions,
        { benchmark: BENCHMARK, sandbox: BACKEND, run_id: "toy-1", concurrency: 2, agent: participant.url },
        { out },
      );
      const outcome = await executeRun(await getBenchmark(BENCHMARK), options, {
        logger: silentLogger(),
        createSandbox: () => createSandbox({ backend: BACKEND, logger: silentLogger() }),
        createParticipant: () => participant,
      });
      expect(outcome).toMatchObject({ exitCode: 0, status: "ok" });
      const results = JSON.parse(await readFile(outcome.paths.results, "utf8")) as {
        isolation: unknown;
        rows: Array<{ passed: boolean }>;
        aggregate: unknown;
      };
      expect(results.isolation).toMatchObject({ backend: BACKEND });
      expect(results.rows).toHaveLength(3);
      expect(results.rows.every((r) => r.passed)).toBe(true);
      expect(results.aggregate).toMatchObject({ pass_at_1: 1 });
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 600_000);

  it("preflight checks them like the built-in ones", async () => {
    const { parsePreflightArgs } = (await fromCopy("src/cli/preflight.ts")) as {
      parsePreflightArgs: (a: string[]) => Record<string, unknown>;
    };
    const { runPreflight } = (await fromCopy("src/preflight/run-preflight.ts")) as {
      runPreflight: (...a: unknown[]) => Promise<{ results: Array<{ name: string; ok: boolean; detail: string }> }>;
    };
    const probes = await fromCopy("src/preflight/default-probes.ts");
    const { resolveCommand } = (await fromCopy("src/preflight/resolve-command.ts")) as {
      resolveCommand: (p: string, env: NodeJS.ProcessEnv) => unknown;
    };
    const { knownBenchmarks } = await fromCopy("src/benchmarks/index.ts");
    const deps = {
      nodeVersion: process.version,
      env: process.env,
      loadDataset: probes["loadDatasetItems"],
      probeSandbox: probes["probeSandbox"],
      probeTools: (probes["toolProber"] as (e: NodeJS.ProcessEnv) => unknown)(process.env),
      probeParticipant: async () => {},
      knownBenchmarks,
      resolveCommand: (p: string) => resolveCommand(p, process.env),
      cliEntry: process.execPath,
      portFree: async () => true,
      portHolder: async () => ({ kind: "unknown" }),
      cardServed: async () => false,
      smoke: async () => ({ exitCode: 0, finalState: "completed", bundle: {}, problems: [], methods: [] }),
    };
    const options = parsePreflightArgs([
      "--scenario",
      join(copy, "scenario_smi"),
      "--benchmark",
      BENCHMARK,
      "--sandbox",
      BACKEND,
      "--allow-weak-isolation",
    ]);
    const report = await runPreflight(options, deps, sink());
    const byName = Object.fromEntries(report.results.map((r) => [r.name, r]));
    expect(byName["dataset"]).toMatchObject({ ok: true });
    expect(byName["sandbox"]).toMatchObject({ ok: true });
    expect(byName["sandbox"]?.detail).toContain(`${BACKEND} sandbox ran print(6*7) → 42`);
    expect(byName["tools"]).toMatchObject({ ok: true });
    expect(byName["runner"]?.detail).toContain(`\`a2a-bench run ${BENCHMARK}\``);
  }, 600_000);
});
