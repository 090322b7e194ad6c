import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertOutDirUsable, clearRunFiles, inspectOutDir, removeIfUnused } from "../../src/cli/run-out-dir.js";
import { UsageError } from "../../src/util/errors.js";
import { cliEntry } from "../../src/util/package-root.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-outdir-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("run output directory guard", () => {
  test("a finished run is not overwritten without --resume or --force; the error names both", () => {
    const out = join(dir, "run1");
    mkdirSync(out);
    writeFileSync(join(out, "results.json"), "{}");
    writeFileSync(join(out, "checkpoint.jsonl"), "{}");
    const state = inspectOutDir(out);
    expect(state).toMatchObject({ existed: true, runFiles: ["results.json", "checkpoint.jsonl"] });
    expect(() => assertOutDirUsable(out, state, { resume: false, force: false }, dir)).toThrow(UsageError);
    expect(() => assertOutDirUsable(out, state, { resume: false, force: false }, dir)).toThrow(
      "run1 already holds a finished run (results.json, checkpoint.jsonl); give --resume to continue it, --force to overwrite it",
    );
    expect(() => assertOutDirUsable(out, state, { resume: true, force: false }, dir)).not.toThrow();
    expect(() => assertOutDirUsable(out, state, { resume: false, force: true }, dir)).not.toThrow();
  });

  test("an empty or foreign directory (e.g. made by the green agent) is usable; an empty events file is not a run", () => {
    const out = join(dir, "work");
    mkdirSync(out);
    writeFileSync(join(out, "events.jsonl"), "");
    writeFileSync(join(out, "notes.txt"), "mine");
    const state = inspectOutDir(out);
    expect(state.runFiles).toEqual([]);
    expect(() => assertOutDirUsable(out, state, { resume: false, force: false }, dir)).not.toThrow();
  });

  test("--force deletes only the previous run's own files", () => {
    const out = join(dir, "run2");
    mkdirSync(out);
    for (const f of ["results.json", "events.jsonl", "keep.txt"]) writeFileSync(join(out, f), "x");
    clearRunFiles(out, inspectOutDir(out));
    expect(readdirSync(out)).toEqual(["keep.txt"]);
  });

  test("after a failure, the directories this invocation created are removed when nothing was written", () => {
    const out = join(dir, "results", "humaneval", "r1");
    const state = inspectOutDir(out);
    expect(state.createdRoot).toBe(join(dir, "results"));
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "events.jsonl"), "");
    expect(removeIfUnused(out, state)).toBe(true);
    expect(existsSync(join(dir, "results"))).toBe(false);
    expect(existsSync(dir)).toBe(true);
  });

  test("a directory that existed, or received output, is kept", () => {
    const existing = join(dir, "existing");
    mkdirSync(existing);
    expect(removeIfUnused(existing, inspectOutDir(existing))).toBe(false);
    expect(existsSync(existing)).toBe(true);
    const out = join(dir, "fresh");
    const state = inspectOutDir(out);
    mkdirSync(out);
    writeFileSync(join(out, "events.jsonl"), '{"event":"run_started"}\n');
    expect(removeIfUnused(out, state)).toBe(false);
    expect(existsSync(join(out, "events.jsonl"))).toBe(true);
  });
});

describe("run CLI (built dist)", () => {
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [cliEntry, ...args], {
      encoding: "utf8",
      cwd: dir,
      env: { ...process.env, NO_COLOR: "1" },
    });

  test("a run that fails before writing anything leaves no results/<benchmark>/<run_id>/", () => {
    const r = cli(["run", "humaneval", "--run-id", "r-fail"]); // no --agent: refused by the runner after its setup
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("needs a participant");
    expect(existsSync(join(dir, "results"))).toBe(false);
  });

  test("re-running a finished --run-id without --resume/--force exits 2 and leaves it untouched", () => {
    const out = join(dir, "results", "humaneval", "r-done");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "results.json"), '{"finished":true}');
    const r = cli(["run", "humaneval", "--run-id", "r-done", "--agent", "http://127.0.0.1:9/"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      "results/humaneval/r-done already holds a finished run (results.json); give --resume to continue it, --force to overwrite it",
    );
    expect(readdirSync(out)).toEqual(["results.json"]);
  });
});
