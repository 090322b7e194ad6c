/**
 * TypeScript test cases are transpiled (types erased, no type check) to
 * CommonJS JavaScript before node runs them: CommonJS so that `import x from
 * "pkg"` becomes `require("pkg")`, which resolves through NODE_PATH and thus
 * finds the installed packages.
 *
 * The transpiler is esbuild (`esbuild-wasm`: WebAssembly, nothing native, the
 * same package the build's bundle step uses), an optional dependency loaded
 * lazily: runs without TypeScript cases do not pay for it. Absent, a TypeScript
 * case stops the run with an InfrastructureError naming the install command.
 */
import type { TransformOptions, TransformResult } from "esbuild-wasm";
import { BenchError } from "../../util/errors.js";
import { isMissingPackage, missingPackageMessage, installCommand } from "../../util/optional-dependency.js";
import { InfrastructureError } from "../../util/infrastructure-error.js";

/** The npm package of the transpiler. */
export const TRANSPILER_PACKAGE = "esbuild-wasm";

/** What we use of esbuild's module. */
export interface Transpiler {
  transform(input: string, options: TransformOptions): Promise<TransformResult>;
}

/** Imports the transpiler module (injected in tests to stand for an install without it). */
export type TranspilerImporter = () => Promise<Transpiler>;

const importTranspiler: TranspilerImporter = () => import("esbuild-wasm");

let loaded: Promise<Transpiler> | undefined;

/**
 * The transpiler module, imported once per process. Not installed → InfrastructureError
 * `E_TOOLS_MISSING` whose fix is the install command.
 */
export async function loadTranspiler(importer: TranspilerImporter = importTranspiler): Promise<Transpiler> {
  try {
    return await importer();
  } catch (err) {
    if (!isMissingPackage(err, TRANSPILER_PACKAGE)) throw err;
    throw new InfrastructureError(
      "E_TOOLS_MISSING",
      missingPackageMessage(TRANSPILER_PACKAGE, "running SPARC TypeScript cases"),
      { cause: err, fix: installCommand(TRANSPILER_PACKAGE) },
    );
  }
}

/**
 * TypeScript's rule for emitting `"use strict"` in CommonJS output: a file with a top-level
 * `import`/`export` is a module, and modules are strict; a plain script is not. esbuild does not add
 * the directive, so it is added here for modules (a line starting with `import` or `export`
 * followed by a space, brace, star or quote; `import(` and `import.meta` do not count).
 */
const MODULE_SYNTAX = /^\s*(?:import|export)[\s{*"']/m;

/** esbuild's settings matching what `tsc --module commonjs --target es2022 --esModuleInterop` emitted. */
function transformOptions(source: string, fileName: string): TransformOptions {
  return {
    loader: "ts",
    format: "cjs",
    target: "es2022",
    sourcefile: fileName,
    // ES2022 class fields are [[Define]] semantics, as tsc's default for that target.
    tsconfigRaw: { compilerOptions: { useDefineForClassFields: true } },
    ...(MODULE_SYNTAX.test(source) ? { banner: '"use strict";' } : {}),
  };
}

/** Transpile one program; syntax errors are reported as a BenchError `E_SPARC_TRANSPILE`. */
export async function transpileTypeScript(source: string, fileName = "case.ts"): Promise<string> {
  loaded ??= loadTranspiler();
  const esbuild = await loaded.catch((err: unknown) => {
    loaded = undefined; // a later call (after an install) tries again
    throw err;
  });
  try {
    return (await esbuild.transform(source, transformOptions(source, fileName))).code;
  } catch (err) {
    const errors = (err as { errors?: Array<{ text: string; location?: { line: number; column: number } | null }> })
      .errors;
    if (!errors?.length) throw err;
    const text = errors
      .map((e) => (e.location ? `${fileName}(${e.location.line},${e.location.column + 1}): ${e.text}` : e.text))
      .join("; ");
    throw new BenchError("E_SPARC_TRANSPILE", `TypeScript transpilation failed: ${text}`, { cause: err });
  }
}
