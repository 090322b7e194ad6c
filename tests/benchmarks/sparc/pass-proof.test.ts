/**
 * SPARC with the pass proof, in the real local sandbox: printing the expected
 * text is not enough, the program must also run to its end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import { judgeOutcome, runTestCase } from "../../../src/benchmarks/sparc/execute-case.js";
import { silentLogger } from "../../../src/util/logger.js";

const hasBwrap = existsSync("/usr/bin/bwrap") || existsSync("/usr/local/bin/bwrap");

describe("SPARC verdict from the pass proof", () => {
  const tc = { id: "c", language: "python" as const, input: "", expectedOutput: "42" };
  const ctx = { type: "humaneval" as const, name: "t" };
  const printed = {
    exitCode: 0,
    signal: null,
    timedOut: false,
    isCanceled: false,
    outputLimitExceeded: false,
    durationMs: 1,
    stdoutTail: "42\n",
    stderrTail: "",
  };

  it.each([
    [{ proof: "verified" as const }, "passed", undefined],
    [{ proof: "missing" as const }, "failed", "model_exit_before_end"],
    [{ proof: "mismatch" as const }, "failed", "model_tampered"],
    [{ proof: "tampered" as const, proofNote: "sys.settrace" }, "failed", "model_tampered"],
    [{ proof: "unsupported" as const }, "skipped", "infrastructure_sandbox"],
  ])("%o → %s", (over, status, mode) => {
    const row = judgeOutcome(tc, { ...printed, ...over }, ctx);
    expect(row.status).toBe(status);
    expect(row.passed).toBe(status === "passed");
    expect(row.failure_mode).toBe(mode);
  });
});

describe.skipIf(!hasBwrap)("SPARC cases in the bwrap sandbox", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: 2 });
  });
  afterAll(async () => {
    await sandbox.close();
  });
  const run = (language: "python" | "javascript", input: string) =>
    runTestCase(
      { id: "c", language, input, expectedOutput: "42" },
      { type: "humaneval", name: "t", sandbox, packages: {} },
    );

  it("an honest program passes in python and javascript", async () => {
    const [p, j] = await Promise.all([
      run("python", "print(6 * 7)\n"),
      run("javascript", "setTimeout(() => console.log(6 * 7), 10);\n"),
    ]);
    expect(p).toMatchObject({ status: "passed", passed: true, proof: "verified" });
    expect(j).toMatchObject({ status: "passed", passed: true, proof: "verified" });
  });

  it("printing the answer, then exiting or crashing before the end, fails with a reason", async () => {
    const rows = await Promise.all([
      run("python", "print(42, flush=True)\nimport os\nos._exit(0)\n"),
      run("python", "print(42)\nraise SystemExit(0)\n"),
      run("javascript", "console.log(42); process.exit(0);\n"),
      run("javascript", "console.log(42); setTimeout(() => { throw new Error('late'); }, 5);\n"),
      run("javascript", "console.log(42); process.emit('beforeExit'); process.exit(0);\n"),
    ]);
    for (const row of rows) {
      expect(row.passed).toBe(false);
      expect(row.status).toBe("failed");
      expect(["model_exit_before_end", "model_tampered"]).toContain(row.failure_mode);
      expect(String(row["reason"])).toMatch(/printed the expected output/);
    }
    expect(rows[4]?.failure_mode).toBe("model_tampered");
  });
});
