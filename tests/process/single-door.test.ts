/**
 * ENFORCES: src/process/ is the one door to child processes. No file under
 * src/ outside src/process/ may import node:child_process (static, type-only,
 * side-effect or dynamic import, or require). Every other module runs its
 * children through src/process/index.ts, so the group kill, the named grace,
 * the first termination reason, the kill-on-exit and the flat outcome record
 * hold for every child the harness starts.
 *
 * The allowlist below may only shrink, and its final form is EMPTY: an entry
 * whose file no longer imports node:child_process fails this test, so the
 * entry is removed in the same change that converts the file.
 */
import { describe, expect, test } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { packageRoot } from "../../src/util/package-root.js";

/** Files still allowed to import node:child_process: none (an entry here must name a file that still does). */
const ALLOWED: readonly string[] = [];

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["'](?:node:)?child_process["']/m;

/** Whether TypeScript source text imports node:child_process in any form. */
export function importsChildProcess(source: string): boolean {
  return IMPORT.test(source);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(?:m|c)?tsx?$/.test(e.name) ? [path] : [];
  });
}

const src = join(packageRoot, "src");
const importers = sourceFiles(src)
  .map((f) => relative(packageRoot, f).split(sep).join("/"))
  .filter((f) => !f.startsWith("src/process/"))
  .filter((f) => importsChildProcess(readFileSync(join(packageRoot, f), "utf8")))
  .sort();

describe("one door to child processes", () => {
  test("the detector sees every form of import and no mere mention", () => {
    expect(importsChildProcess(`import { spawn } from "node:child_process";`)).toBe(true);
    expect(importsChildProcess(`import type { ChildProcess } from 'child_process';`)).toBe(true);
    expect(importsChildProcess(`import {\n  spawn,\n} from "node:child_process";`)).toBe(true);
    expect(importsChildProcess(`import "node:child_process";`)).toBe(true);
    expect(importsChildProcess(`const cp = await import("node:child_process");`)).toBe(true);
    expect(importsChildProcess(`const cp = require("child_process");`)).toBe(true);
    expect(importsChildProcess(`// our own layer on node:child_process, not execa`)).toBe(false);
    expect(importsChildProcess(`import { runChild } from "../process/index.js";`)).toBe(false);
  });

  test("no file under src/ outside src/process/ imports node:child_process, beyond the shrinking allowlist", () => {
    expect(importers.filter((f) => !ALLOWED.includes(f))).toEqual([]);
  });

  test("every allowlist entry still imports it (a converted file leaves the list: its final form is empty)", () => {
    expect(ALLOWED.filter((f) => !importers.includes(f))).toEqual([]);
  });
});
