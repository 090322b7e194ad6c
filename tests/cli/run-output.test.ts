/**
 * What `a2a-bench run` prints on a piped stdout, through the built CLI (scoring a predictions
 * file, no participant needed): readable progress lines and a summary line by default; the
 * runner protocol's `A2A_EVENT:` lines with --events (what the green agent passes).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliEntry } from "../../src/util/package-root.js";
import { SAMPLE_PROBLEMS } from "../../src/benchmarks/humaneval/sample-dataset.js";
import { parseRunnerLine } from "../../src/runner/protocol.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-run-output-"));
  writeFileSync(
    join(dir, "p.jsonl"),
    SAMPLE_PROBLEMS.map((p, i) =>
      JSON.stringify({ task_id: p.task_id, completion: i === 1 ? "    return None\n" : p.canonical_solution }),
    ).join("\n") + "\n",
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const runArgv = (runId: string): string[] => [
  cliEntry,
  "run",
  "humaneval",
  "--dataset",
  "sample",
  "--samples",
  "2",
  "--predictions",
  join(dir, "p.jsonl"),
  "--out",
  join(dir, runId),
  "--run-id",
  runId,
];

const run = (runId: string, ...extra: string[]) =>
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
      join(dir, runId),
      "--run-id",
      runId,
      ...extra,
    ],
    { encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "" } },
  );

describe("run's output on a pipe (built dist)", () => {
  it("is readable: progress lines and a summary line (benchmark, score, counts, out dir), no protocol lines", () => {
    const r = run("people");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain("A2A_EVENT:");
    expect(r.stdout).not.toMatch(/\x1b/);
    const lines = r.stdout.split("\n").filter((l) => l !== "");
    const total = SAMPLE_PROBLEMS.length;
    expect(lines[0]).toBe(`humaneval: ${total} item(s)`);
    expect(lines).toContain(`humaneval: ${total}/${total} done, ${total - 1} passed, 1 failed, 0 errored, ETA 0 s`);
    expect(lines.at(-1)).toBe(
      `humaneval run people: accuracy ${((total - 1) / total).toFixed(4)}; ${total} items: ${total - 1} passed, 1 failed; out ${join(dir, "people")}`,
    );
  });

  it("--samples beyond the dataset says so (and runs all of it)", () => {
    const r = run("over", "--samples", "40");
    expect(r.status, r.stderr).toBe(0);
    const total = SAMPLE_PROBLEMS.length;
    expect(r.stdout.split("\n")).toContain(
      `humaneval: --samples 40 exceeds the dataset's ${total} item(s); running all ${total}`,
    );
    expect(r.stdout).toContain(`${total}/${total} done`);
  });

  it("--log-level sets what is logged over env LOG_LEVEL; a bad one is a usage error", () => {
    const quiet = spawnSync(process.execPath, [...runArgv("quiet"), "--log-level", "warn"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LOG_LEVEL: "info" },
    });
    expect(quiet.status, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain("run finished");
    const loud = spawnSync(process.execPath, [...runArgv("loud"), "--log-level", "info"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LOG_LEVEL: "error" },
    });
    expect(loud.status, loud.stderr).toBe(0);
    expect(loud.stderr).toContain("run finished");
    const bad = spawnSync(process.execPath, [...runArgv("bad"), "--log-level", "wran"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('(did you mean "warn"?)');
  });

  it("with --events is the runner protocol only, the green agent's reading", () => {
    const r = run("machine", "--events");
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split("\n").filter((l) => l !== "");
    const parsed = lines.map(parseRunnerLine);
    expect(parsed.every((p) => p.kind === "event")).toBe(true);
    const events = parsed.flatMap((p) => (p.kind === "event" ? [p.event.event] : []));
    expect(events[0]).toBe("run_started");
    expect(events.at(-1)).toBe("run_finished");
    expect(r.stdout).not.toContain("humaneval run machine:");
  });

  it("--json and --events together are a usage error; --help names --events", () => {
    const r = run("both", "--json", "--events");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--json and --events both choose what stdout carries; give one");
    const help = spawnSync(process.execPath, [cliEntry, "run", "--help"], { encoding: "utf8" });
    expect(help.stdout).toMatch(/--events +print the runner protocol on stdout/);
  });
});

describe("run with an unreachable participant (built dist)", () => {
  it("says why once, on one summary line, with no table of dashes and no count of a run that never started", () => {
    const out = join(dir, "unreachable");
    const r = spawnSync(
      process.execPath,
      [
        cliEntry,
        "run",
        "humaneval",
        "--dataset",
        "sample",
        "--samples",
        "2",
        "--agent",
        "http://127.0.0.1:9/",
        "--out",
        out,
      ],
      { encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "" } },
    );
    expect(r.status, r.stderr).toBe(3);
    const both = r.stdout + r.stderr;
    // One log record (stderr, for the log) and one line for people (stdout); no other copy.
    expect(both.split("is unreachable").length - 1).toBe(2);
    expect(r.stderr.split("is unreachable").length - 1).toBe(1);
    expect(r.stdout).not.toMatch(/metric|-----|0\/2 done/);
    expect(r.stdout.trim().split("\n").at(-1)).toMatch(
      /^humaneval run .*: status error, no score \[E_PARTICIPANT_UNREACHABLE\]: participant http:\/\/127\.0\.0\.1:9\/ is unreachable/,
    );
  });
});
