/**
 * SPARC judged from outside the program: the stdout the sandbox captured
 * (the plan's comparison) and the exit status the kernel reported. Printing
 * the expected output and exiting 0 is a pass by SPARC's definition, however
 * the program got there; our timeout, our output cap, a signal or a non-zero
 * exit after printing it is not.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { ExecOutcome, Sandbox } from "../../../src/sandbox/types.js";
import { buildExecRequest, judgeOutcome, runTestCase } from "../../../src/benchmarks/sparc/execute-case.js";
import { endedCleanly, sparcPasses } from "../../../src/benchmarks/sparc/pass-rule.js";
import { silentLogger } from "../../../src/util/logger.js";

const hasBwrap = existsSync("/usr/bin/bwrap") || existsSync("/usr/local/bin/bwrap");

const tc = { id: "c", language: "python" as const, input: "", expectedOutput: "42" };
const ctx = { type: "humaneval" as const, name: "t" };
const printed: ExecOutcome = {
  exitCode: 0,
  signal: null,
  timedOut: false,
  isCanceled: false,
  outputLimitExceeded: false,
  durationMs: 1,
  stdoutTail: "42\n",
  stderrTail: "",
};

describe("SPARC verdict from the captured output and the kernel's exit status", () => {
  it.each([
    ["exit 0", {}, "passed", undefined],
    ["exit 3", { exitCode: 3 }, "error", "model_runtime_error"],
    ["SIGTERM (its own)", { exitCode: null, signal: "SIGTERM" }, "error", "model_runtime_error"],
    [
      "SIGKILL (its own or the kernel's: counted as a breach)",
      { exitCode: null, signal: "SIGKILL" },
      "error",
      "safety_memory_limit",
    ],
    ["our timeout", { exitCode: null, signal: "SIGKILL", timedOut: true }, "timeout", "timeout"],
    [
      "our output cap",
      { exitCode: null, signal: "SIGKILL", outputLimitExceeded: true },
      "error",
      "safety_output_limit",
    ],
    ["a cancelled run", { exitCode: null, signal: "SIGTERM", isCanceled: true }, "skipped", "infrastructure_canceled"],
    ["a sandbox failure", { exitCode: null, infraError: "bwrap missing" }, "skipped", "infrastructure_sandbox"],
  ] as const)("expected output printed, then %s → %s", (_what, over, status, mode) => {
    const row = judgeOutcome(tc, { ...printed, ...over }, ctx);
    expect(row.status).toBe(status);
    expect(row.passed).toBe(status === "passed");
    expect(row.failure_mode).toBe(mode);
    if (status === "error" || status === "timeout") expect(row["reason"]).toMatch(/^printed the expected output, but /);
    expect(row).not.toHaveProperty("proof");
  });

  it("wrong or no output with exit 0 fails; the rule's two halves are exported as they are applied", () => {
    expect(judgeOutcome(tc, { ...printed, stdoutTail: "41\n" }, ctx)).toMatchObject({
      status: "failed",
      failure_mode: "model_wrong_output",
    });
    expect(judgeOutcome(tc, { ...printed, stdoutTail: "" }, ctx)).toMatchObject({ status: "failed", passed: false });
    expect(endedCleanly(printed)).toBe(true);
    expect(endedCleanly({ ...printed, exitCode: 1 })).toBe(false);
    expect(sparcPasses(printed, "42")).toBe(true);
    expect(sparcPasses({ ...printed, timedOut: true }, "42")).toBe(false);
  });

  it("asks the sandbox for no pass proof", async () => {
    const sandbox = { isolation: "bwrap" } as unknown as Sandbox;
    const req = await buildExecRequest(tc, { ...ctx, sandbox, packages: {} });
    expect(req).not.toHaveProperty("proof");
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
  const run = (language: "python" | "javascript", input: string, timeout = 10_000) =>
    runTestCase(
      { id: "c", language, input, expectedOutput: "42", timeout },
      { type: "humaneval", name: "t", sandbox, packages: {} },
    );

  it("the expected output and exit 0 pass, however the program ended with 0 (SPARC's definition)", async () => {
    const rows = await Promise.all([
      run("python", "print(6 * 7)\n"),
      run("javascript", "setTimeout(() => console.log(6 * 7), 10);\n"),
      run("python", "print(42, flush=True)\nimport os\nos._exit(0)\n"),
      run("javascript", "console.log(42); setImmediate(() => process.exit(0));\n"),
    ]);
    for (const row of rows)
      expect(row, JSON.stringify(row)).toMatchObject({ status: "passed", passed: true, exit_code: 0, signal: null });
  });

  it("printing it, then exiting non-zero, killing itself or overstaying our timeout is not a pass", async () => {
    const [exit3, term, kill, jsExit, late] = await Promise.all([
      run("python", "print(42, flush=True)\nimport sys\nsys.exit(3)\n"),
      run("python", "print(42, flush=True)\nimport os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n"),
      run("javascript", "console.log(42); setTimeout(() => process.kill(process.pid, 'SIGKILL'), 5);\n"),
      run("javascript", "console.log(42); setTimeout(() => process.exit(1), 5);\n"),
      run("python", "print(42, flush=True)\nimport time\ntime.sleep(30)\n", 1500),
    ]);
    expect(exit3, JSON.stringify(exit3)).toMatchObject({ status: "error", passed: false, exit_code: 3 });
    expect(term, JSON.stringify(term)).toMatchObject({ status: "error", passed: false, signal: "SIGTERM" });
    // bwrap relays a signal death of the program as 128 + signal number; the fork server reports the signal.
    expect(kill, JSON.stringify(kill)).toMatchObject({ status: "error", passed: false });
    expect(kill.signal === "SIGKILL" || kill.exit_code === 137, JSON.stringify(kill)).toBe(true);
    expect(jsExit, JSON.stringify(jsExit)).toMatchObject({ status: "error", passed: false, exit_code: 1 });
    expect(late, JSON.stringify(late)).toMatchObject({ status: "timeout", passed: false, failure_mode: "timeout" });
    for (const r of [exit3, term, kill, jsExit, late])
      expect(String(r["reason"])).toMatch(/^printed the expected output, but /);
    expect(String(late.output)).toContain("42");
  });

  it("raising the proof listener's event from a timer or setImmediate and exiting 0 without the answer fails", async () => {
    const rows = await Promise.all([
      run("javascript", "setTimeout(() => { process.emit('beforeExit', 0); process.exit(0); }, 5);\n"),
      run("javascript", "setImmediate(() => { process.emit('beforeExit', 0); console.log(41); process.exit(0); });\n"),
    ]);
    for (const row of rows)
      expect(row, JSON.stringify(row)).toMatchObject({
        status: "failed",
        passed: false,
        failure_mode: "model_wrong_output",
        exit_code: 0,
      });
  });
});
