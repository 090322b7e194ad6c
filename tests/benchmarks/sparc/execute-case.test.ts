import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadSparcConfig } from "../../../src/benchmarks/sparc/config.js";
import { runTestCase } from "../../../src/benchmarks/sparc/execute-case.js";
import { installConfigPackages } from "../../../src/benchmarks/sparc/definition.js";
import { hostSandbox } from "../../fixtures/sparc/host-sandbox.js";
import type { SandboxCapability } from "../../../src/sandbox/capabilities.js";

const fixtures = join(import.meta.dirname, "../../fixtures/sparc");
const cacheDir = await mkdtemp(join(tmpdir(), "sparc-exec-cache-"));
afterAll(async () => rm(cacheDir, { recursive: true, force: true }));

const registryReachable = await fetch("https://registry.npmjs.org/is-number", { signal: AbortSignal.timeout(8000) })
  .then((r) => r.ok)
  .catch(() => false);
if (!registryReachable) process.stderr.write("[sparc] SKIP package-using cases: the npm registry is unreachable\n");

describe("per-language execution (host stand-in sandbox)", () => {
  it("runs Python, JavaScript and TypeScript cases, with npm packages, and judges them", async () => {
    const config = await loadSparcConfig(join(fixtures, "mixed-languages.json"));
    const packages = registryReachable ? await installConfigPackages(config, { cacheDir }) : {};
    const sandbox = hostSandbox();
    const rows = new Map<string, Awaited<ReturnType<typeof runTestCase>>>();
    for (const tc of config.testCases) {
      if (!registryReachable && tc.input.includes("is-number")) continue;
      rows.set(tc.id, await runTestCase(tc, { type: config.type, name: config.name, sandbox, packages }));
    }
    const status = Object.fromEntries([...rows].map(([id, r]) => [id, r.status]));
    expect(status).toMatchObject({
      "py-sum": "passed",
      "py-default-language": "passed",
      "py-wrong": "failed",
      "js-contains": "passed",
      "js-crash": "error",
      "ts-typed": "passed",
      "ts-wrong": "failed",
      "py-timeout": "timeout",
    });
    if (registryReachable) expect(status).toMatchObject({ "js-package": "passed", "ts-package-import": "passed" });
    expect(rows.get("js-crash")?.error).toMatch(/exit code 1: .*Error: boom/s);
    expect(rows.get("py-timeout")?.execution_ms).toBeLessThan(10_000);
    // TypeScript reached node as transpiled CommonJS with the package set on NODE_PATH.
    const tsReq = sandbox.requests.find((r) => r.code.includes('require("is-number")'));
    if (registryReachable) {
      expect(tsReq?.language).toBe("node");
      // The stand-in reports isolation "none": the cache is used in place, without binds.
      expect(tsReq?.env?.["NODE_PATH"]).toBe(packages.javascript?.dir);
      expect(tsReq?.binds).toBeUndefined();
    }
  }, 60_000);

  it("a TypeScript syntax error is an error row; the program is never run", async () => {
    const sandbox = hostSandbox();
    const row = await runTestCase(
      { id: "bad-ts", language: "typescript", input: "const x: = 5;", expectedOutput: "" },
      { type: "humaneval", name: "t", sandbox, packages: {} },
    );
    expect(row).toMatchObject({ status: "error", passed: false, failure_mode: "model_compile_error" });
    expect(row).not.toHaveProperty("reason"); // never ran, whatever an empty expectedOutput would match
    expect(row.error).toMatch(/TypeScript transpilation failed/);
    expect(sandbox.requests).toHaveLength(0);
  });

  it("packages on a backend that shows no host directory stop the run with a typed refusal; nothing runs", async () => {
    const host = hostSandbox();
    const sandbox = { ...host, backend: "docker" as const, capabilities: new Set<SandboxCapability>(["environments"]) };
    const packages = {
      python: {
        language: "python" as const,
        packages: ["x"],
        dir: cacheDir,
        env: { PYTHONPATH: cacheDir },
        cached: true,
        source: "test",
      },
    };
    await expect(
      runTestCase(
        { id: "py-pkg", input: "print(1)", expectedOutput: "1" },
        { type: "humaneval", name: "t", sandbox, packages },
      ),
    ).rejects.toMatchObject({
      code: "E_SANDBOX_CAPABILITY",
      backend: "docker",
      capability: "host-binds",
      caller: "sparc",
    });
    expect(host.requests).toHaveLength(0);
  });
});
