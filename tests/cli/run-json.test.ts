/**
 * `run --json` prints only the summary on stdout, and a finished run is
 * replaced only with --force — through the built CLI, scoring a predictions
 * file (no participant needed) in the real sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliEntry } from "../../src/util/package-root.js";
import { SAMPLE_PROBLEMS } from "../../src/benchmarks/humaneval/sample-dataset.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-run-json-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (...extra: string[]) =>
  spawnSync(
    process.execPath,
    [
      cliEntry,
      "run",
      "humaneval",
      "--dataset",
      "sample",
      "--predictions",
      join(dir, "p.jsonl"),
      "--out",
      join(dir, "out"),
      "--samples",
      "2",
      ...extra,
    ],
    {
      encoding: "utf8",
      timeout: 60_000,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );

describe("run --json and --force (built dist)", () => {
  it("stdout is one JSON summary; a second run needs --force, which replaces the first", () => {
    writeFileSync(
      join(dir, "p.jsonl"),
      SAMPLE_PROBLEMS.map((p) => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution })).join("\n") +
        "\n",
    );
    const first = run("--json", "--run-id", "one");
    expect(first.status, first.stderr).toBe(0);
    const lines = first.stdout.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(summary).toMatchObject({
      run_id: "one",
      benchmark: "humaneval",
      exit_code: 0,
      interrupted: false,
      out: join(dir, "out"),
    });
    expect(summary["aggregate"]).toMatchObject({ accuracy: 1, total: 2 });
    expect(first.stdout).not.toContain("A2A_EVENT:");

    const again = run("--json", "--run-id", "two");
    expect(again.status).toBe(2);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain("already holds a finished run");
    expect(again.stderr).toContain("--resume");
    expect(again.stderr).toContain("--force");

    const forced = run("--json", "--run-id", "two", "--force");
    expect(forced.status, forced.stderr).toBe(0);
    expect((JSON.parse(forced.stdout) as { run_id: string }).run_id).toBe("two");
    // The events file was replaced, not appended to: it holds the second run only.
    const events = readFileSync(join(dir, "out", "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { run_id?: string; event: string });
    expect(events.filter((e) => e.event === "run_started").map((e) => e.run_id)).toEqual(["two"]);
  });
});
