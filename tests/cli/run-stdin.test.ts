/**
 * `a2a-bench run` is indifferent to its stdin (built CLI, scoring a predictions file): /dev/null, an empty
 * pipe (`echo -n | a2a-bench run …`, as under a benchmarking tool or a CI step) and a pipe nobody writes or
 * closes all give the same complete run. Only the green agent's lifeline (its own fd) stops it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliEntry } from "../../src/util/package-root.js";
import { SAMPLE_PROBLEMS } from "../../src/benchmarks/humaneval/sample-dataset.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-run-stdin-"));
  writeFileSync(
    join(dir, "p.jsonl"),
    SAMPLE_PROBLEMS.map((p) => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution })).join("\n") +
      "\n",
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const args = (runId: string) => [
  cliEntry,
  "run",
  "humaneval",
  "--dataset",
  "sample",
  "--samples",
  "3",
  "--predictions",
  join(dir, "p.jsonl"),
  "--out",
  join(dir, runId),
  "--run-id",
  runId,
  "--json",
];
const summary = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
const env = { ...process.env, NO_COLOR: "" };

describe("run's stdin", () => {
  it("/dev/null: the run completes (exit 0)", () => {
    const r = spawnSync(process.execPath, args("devnull"), {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(summary(r.stdout)).toMatchObject({ status: "ok", interrupted: false });
  });

  it("an empty pipe, closed at once: the run completes (exit 0, not 143)", () => {
    const r = spawnSync(process.execPath, args("empty-pipe"), { encoding: "utf8", input: "", env });
    expect(r.status, r.stderr).toBe(0);
    expect(summary(r.stdout)).toMatchObject({ status: "ok", interrupted: false });
  });

  it("`echo -n | a2a-bench run …` in a shell", () => {
    const line = [process.execPath, ...args("shell-pipe")].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    const r = spawnSync("bash", ["-c", `echo -n | ${line}`], { encoding: "utf8", env });
    expect(r.status, r.stderr).toBe(0);
    expect(summary(r.stdout)).toMatchObject({ status: "ok", interrupted: false });
  });

  it("a pipe closed mid-run changes nothing either", async () => {
    const child = spawn(process.execPath, args("closed-mid-run"), { stdio: ["pipe", "pipe", "pipe"], env });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += String(d)));
    child.stderr.on("data", (d: Buffer) => (err += String(d)));
    child.stdin.write("anything\n");
    child.stdin.end();
    const code = await new Promise<number | null>((r) => child.once("close", (c) => r(c)));
    expect(code, err).toBe(0);
    expect(summary(out)).toMatchObject({ status: "ok", interrupted: false });
  });
});
