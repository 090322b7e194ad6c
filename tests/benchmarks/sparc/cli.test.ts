import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEntry } from "../../../src/util/package-root.js";
import { checkAgainst } from "../../../src/util/schema.js";
import { closedPort } from "../../support/closed-port.js";

const fixtures = join(import.meta.dirname, "../../fixtures/sparc");
const root = await mkdtemp(join(tmpdir(), "sparc-cli-"));
afterAll(async () => rm(root, { recursive: true, force: true }));
const registryReachable = await fetch("https://registry.npmjs.org/is-number", { signal: AbortSignal.timeout(8000) })
  .then((res) => res.ok)
  .catch(() => false);
if (!registryReachable)
  process.stderr.write("[sparc] SKIP mixed example with an npm package: the npm registry is unreachable\n");
if (!existsSync(cliEntry)) process.stderr.write(`[sparc] SKIP CLI tests: ${cliEntry} is missing (run npm run build)\n`);

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cliEntry, ...args],
      { timeout: 60_000, env: { ...process.env, A2A_BENCH_CACHE_DIR: join(root, "cache") } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe.skipIf(!existsSync(cliEntry))("a2a-bench run sparc", () => {
  it("runs a plan-shaped config given with --config and writes the BenchmarkResult next to results.json", async () => {
    const out = join(root, "plan");
    const r = await cli([
      "run",
      "sparc",
      "--config",
      join(fixtures, "plan-humaneval.json"),
      "--out",
      out,
      "--sparc-metrics",
      "--events",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('A2A_EVENT:{"event":"run_finished"');
    const result = JSON.parse(await readFile(join(out, "sparc_result.json"), "utf8")) as Record<string, unknown>;
    expect(checkAgainst("sparc_benchmark_result.schema.json", result)).toEqual([]);
    expect(result).toMatchObject({ benchmarkName: "plan-style-no-packages", totalTests: 3, passedTests: 3 });
    expect(result["planMetrics"]).toBeDefined();
    const results = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as {
      aggregate: { sparc: unknown; accuracy: number };
    };
    expect(results.aggregate.accuracy).toBe(1);
    expect(results.aggregate.sparc).toMatchObject({ benchmarkType: "humaneval", resultFile: "sparc_result.json" });
  }, 90_000);

  it.skipIf(!registryReachable)(
    "runs the mixed Python/JavaScript/TypeScript example with an npm package in the real sandbox",
    async () => {
      const out = join(root, "mixed");
      const r = await cli(["run", "sparc", "--config", join(fixtures, "mixed-languages.json"), "--out", out]);
      expect(r.code, r.stderr).toBe(0);
      const result = JSON.parse(await readFile(join(out, "sparc_result.json"), "utf8")) as {
        testResults: Array<{ testId: string; status: string }>;
      };
      expect(Object.fromEntries(result.testResults.map((t) => [t.testId, t.status]))).toEqual({
        "py-sum": "passed",
        "py-default-language": "passed",
        "py-wrong": "failed",
        "js-contains": "passed",
        "js-crash": "error",
        "js-package": "passed",
        "ts-typed": "passed",
        "ts-package-import": "passed",
        "ts-wrong": "failed",
        "py-timeout": "timeout",
      });
    },
    120_000,
  );

  it("stops before any test with one clear line when the Python index is unreachable", async () => {
    const cfg = join(root, "needs-pytest.json");
    await writeFile(
      cfg,
      JSON.stringify({
        type: "swebench",
        name: "p",
        packages: { python: ["pytest"] },
        testCases: [{ id: "t", input: "import pytest; print('ok')", expectedOutput: "ok" }],
      }),
    );
    const index = `http://127.0.0.1:${await closedPort()}/simple/`;
    const r = await cli([
      "run",
      "sparc",
      "--config",
      cfg,
      "--out",
      join(root, "offline"),
      "--sparc-pip-index-url",
      index,
      "--events",
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `a2a-bench run: cannot install python package "pytest": package source ${index} is unreachable (ECONNREFUSED`,
    );
    expect(r.stderr).toContain("[E_PACKAGE_SOURCE_UNREACHABLE]");
    expect(r.stdout).not.toContain("task_started");
  }, 60_000);

  it("refuses a config error naming the test case and key", async () => {
    const cfg = join(root, "bad.json");
    await writeFile(
      cfg,
      JSON.stringify({
        type: "humaneval",
        name: "b",
        testCases: [{ id: "neg", input: "", expectedOutput: "", timeout: 0 }],
      }),
    );
    const r = await cli(["run", "sparc", "--config", cfg, "--out", join(root, "bad")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('testCases[0] (id "neg"): key "timeout": must be > 0');
  }, 60_000);

  it("without a config file says how to give one (usage error, exit 2)", async () => {
    const r = await cli(["run", "sparc", "--out", join(root, "none")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--config <file.json>");
  }, 60_000);
});
