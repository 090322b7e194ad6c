import { createRequire } from "node:module";
import { describe, expect, test } from "vitest";
import { installCommand, isMissingPackage, missingPackageMessage } from "../../src/util/optional-dependency.js";

const ABSENT = "a2a-bench-no-such-package";

describe("optional dependencies", () => {
  test("node's own not-found error for the package is recognised (CommonJS wording)", () => {
    let err: unknown;
    try {
      createRequire(import.meta.url)(ABSENT);
    } catch (e) {
      err = e;
    }
    expect(isMissingPackage(err, ABSENT)).toBe(true);
    expect(isMissingPackage(err, "another-package")).toBe(false);
  });

  test("the ESM wording is recognised; a package's own missing import is not its absence", () => {
    const esm = (name: string) =>
      Object.assign(new Error(`Cannot find package '${name}' imported from /app/dist/x.js`), {
        code: "ERR_MODULE_NOT_FOUND",
      });
    expect(isMissingPackage(esm("@e2b/code-interpreter"), "@e2b/code-interpreter")).toBe(true);
    // The package is there but one of its dependencies is not: a broken install, reported as is.
    const transitive = Object.assign(
      new Error("Cannot find package 'e2b' imported from /app/node_modules/@e2b/code-interpreter/dist/index.mjs"),
      { code: "ERR_MODULE_NOT_FOUND" },
    );
    expect(isMissingPackage(transitive, "@e2b/code-interpreter")).toBe(false);
    expect(isMissingPackage(new Error("Cannot find package '@e2b/code-interpreter'"), "@e2b/code-interpreter")).toBe(
      false,
    );
    expect(isMissingPackage("not an error", "x")).toBe(false);
  });

  test("the message names what needs it, the package and the install command", () => {
    expect(installCommand("esbuild-wasm")).toBe("npm install esbuild-wasm");
    expect(missingPackageMessage("esbuild-wasm", "running SPARC TypeScript cases")).toBe(
      "running SPARC TypeScript cases needs the optional package esbuild-wasm, which is not installed " +
        "(an install with --omit=optional leaves it out): run `npm install esbuild-wasm`",
    );
  });
});
