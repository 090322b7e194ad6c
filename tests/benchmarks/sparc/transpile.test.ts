import { runInNewContext } from "node:vm";
import { describe, expect, test } from "vitest";
import { loadTranspiler, transpileTypeScript, TRANSPILER_PACKAGE } from "../../../src/benchmarks/sparc/transpile.js";
import { InfrastructureError } from "../../../src/util/infrastructure-error.js";

/** Run CommonJS output with a fake `require` and capture what it logs. */
function runCjs(code: string, modules: Record<string, unknown> = {}): string[] {
  const lines: string[] = [];
  const module = { exports: {} };
  runInNewContext(code, {
    module,
    exports: module.exports,
    require: (name: string) => modules[name],
    console: { log: (...args: unknown[]) => lines.push(args.map(String).join(" ")) },
  });
  return lines;
}

describe("SPARC TypeScript transpile (esbuild)", () => {
  test("types are erased and imports become require calls (CommonJS, esModuleInterop)", async () => {
    const code = await transpileTypeScript(
      'import isNumber from "is-number";\nimport { join } from "node:path";\n' +
        "interface P { n: number }\nconst p: P = { n: 3 };\nconsole.log(isNumber(p.n), join('a', 'b'));",
    );
    expect(code).toContain('require("is-number")');
    // A CommonJS package (no __esModule) is the default import, as tsc's esModuleInterop.
    const lines = runCjs(code, {
      "is-number": (v: unknown) => typeof v === "number",
      "node:path": { join: (...p: string[]) => p.join("/") },
    });
    expect(lines).toEqual(["true a/b"]);
  });

  test("modules are strict, as tsc emitted them; plain scripts are not", async () => {
    const mod = await transpileTypeScript('import "x";\nundeclared = 1;');
    expect(mod.startsWith('"use strict";')).toBe(true);
    expect(() => runCjs(mod)).toThrow(/undeclared is not defined/);
    const script = await transpileTypeScript("undeclared = 1;\nconsole.log(undeclared);");
    expect(script).not.toContain('"use strict"');
    expect(runCjs(script)).toEqual(["1"]);
  });

  test("a syntax error is E_SPARC_TRANSPILE naming the file, line and column", async () => {
    await expect(transpileTypeScript("const x: = 5;", "bad.ts")).rejects.toMatchObject({
      code: "E_SPARC_TRANSPILE",
      message: expect.stringMatching(/^TypeScript transpilation failed: bad\.ts\(1,10\): /) as unknown,
    });
  });

  test("not installed: an InfrastructureError E_TOOLS_MISSING whose fix is the install command", async () => {
    const err = await loadTranspiler(() =>
      Promise.reject(
        Object.assign(new Error(`Cannot find package '${TRANSPILER_PACKAGE}' imported from /app/dist/x.js`), {
          code: "ERR_MODULE_NOT_FOUND",
        }),
      ),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InfrastructureError);
    expect(err).toMatchObject({ code: "E_TOOLS_MISSING", fix: "npm install esbuild-wasm" });
    expect((err as Error).message).toContain(
      "running SPARC TypeScript cases needs the optional package esbuild-wasm, which is not installed",
    );
  });
});
