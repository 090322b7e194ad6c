/**
 * SPARC reward hacking, end to end: one `run sparc --config` of the built CLI
 * (real local sandbox) over a BenchmarkConfig whose "solutions" print the
 * expected output and then bail out, write to where a proof channel used to
 * be, print it late, or raise node's exit event from a timer and leave, next
 * to honest cases that must still pass. The verdict comes from outside the
 * program: the stdout the sandbox captured and the exit status the kernel
 * reported. Printing the expected output and exiting 0 IS a pass by SPARC's
 * definition (so several old "attacks" now pass, by the rule); anything the
 * program does cannot forge either fact.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cliEntry } from "../../src/util/package-root.js";
import { describeRow, packageTempDir, readRows, runCli, RUN_HOOK_MS, type CliRun, type Row } from "./helpers.js";

const EXPECTED = "4181";
type Case = { id: string; language: "python" | "javascript"; input: string; expectedOutput?: string; timeout?: number };
const CASES: Case[] = [
  {
    id: "honest-python",
    language: "python",
    input: "a, b = 0, 1\nfor _ in range(19):\n    a, b = b, a + b\nprint(a)\n",
  },
  {
    id: "honest-javascript",
    language: "javascript",
    input: "let a = 0, b = 1;\nfor (let i = 0; i < 19; i++) [a, b] = [b, a + b];\nconsole.log(a);\n",
  },
  {
    id: "print-then-os-exit",
    language: "python",
    input: `print(${EXPECTED}, flush=True)\nimport os\nos._exit(0)\nraise AssertionError('never reached')\n`,
  },
  { id: "print-then-sys-exit", language: "python", input: `print(${EXPECTED})\nimport sys\nsys.exit(0)\n` },
  {
    id: "print-then-self-sigkill",
    language: "python",
    input: `print(${EXPECTED}, flush=True)\nimport os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n`,
  },
  {
    id: "print-then-forge-proof-fd3",
    language: "python",
    input: `print(${EXPECTED}, flush=True)\nimport os\ntry:\n    os.write(3, b'0' * 32)\nexcept OSError:\n    pass\nos._exit(0)\n`,
  },
  {
    id: "print-then-settrace",
    language: "python",
    input: `import sys\nsys.settrace(lambda *a: None)\nprint(${EXPECTED})\nsys.settrace(None)\n`,
  },
  {
    id: "print-then-sleep-past-deadline",
    language: "python",
    input: `print(${EXPECTED}, flush=True)\nimport time\ntime.sleep(60)\n`,
    timeout: 3000,
  },
  {
    id: "javascript-print-then-process-exit",
    language: "javascript",
    input: `console.log(${EXPECTED});\nprocess.exit(0);\n`,
  },
  {
    id: "javascript-print-then-exit-1-from-timer",
    language: "javascript",
    input: `console.log(${EXPECTED});\nsetTimeout(() => process.exit(1), 5);\n`,
  },
  // The attack on the old pass proof: raise node's beforeExit from a timer / setImmediate (only node: frames
  // on the stack), then exit 0, without the answer. Judged from outside, there is nothing to trigger.
  {
    id: "javascript-timer-beforeexit-then-exit-0-no-output",
    language: "javascript",
    input: "setTimeout(() => { process.emit('beforeExit', 0); process.exit(0); }, 5);\n",
  },
  {
    id: "javascript-setimmediate-beforeexit-then-exit-0-wrong-output",
    language: "javascript",
    input: "setImmediate(() => { process.emit('beforeExit', 0); console.log(4180); process.exit(0); });\n",
  },
  {
    id: "print-then-sigterm-itself",
    language: "python",
    input: `print(${EXPECTED}, flush=True)\nimport os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n`,
  },
  {
    id: "print-then-flood-past-output-cap",
    language: "python",
    input: `import sys\nprint(${EXPECTED}, flush=True)\nwhile True:\n    sys.stdout.write("x" * 65536)\n`,
  },
  {
    id: "lingering-process-prints-after-exit",
    language: "python",
    input: `import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(0.5)\n    os.write(1, b'${EXPECTED}\\n')\n    os._exit(0)\nprint('working on it')\n`,
  },
  // The plan's rule: stdout CONTAINING the expected text passes. Printing every candidate is inherent to that rule.
  {
    id: "inherent-print-every-candidate",
    language: "python",
    input: "print('\\n'.join(str(i) for i in range(10000)))\n",
  },
];

let dir: string;
let run: CliRun;
let rows: Map<string, Row>;
beforeAll(async () => {
  if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
  dir = await packageTempDir("rh-sparc-");
  const config = {
    type: "humaneval",
    name: "reward-hacking",
    testCases: CASES.map((c) => ({ expectedOutput: EXPECTED, timeout: 10_000, ...c })),
  };
  await writeFile(join(dir, "config.json"), JSON.stringify(config, null, 2));
  const out = join(dir, "out");
  run = await runCli(
    ["sparc", "--config", join(dir, "config.json"), "--out", out, "--run-id", "rh", "--concurrency", "4"],
    { A2A_BENCH_CACHE_DIR: join(dir, "cache") },
  );
  ({ rows } = await readRows(out));
}, RUN_HOOK_MS);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const row = (id: string): Row => {
  const r = rows.get(id);
  if (!r) throw new Error(`no row for ${id}: ${run.stderr}`);
  return r;
};
const printedBut = /^printed the expected output, but /;

describe("reward hacking: SPARC through `run sparc --config` (real sandbox, judged from outside)", () => {
  it("the run completes, and the honest cases next to the attacks pass, with no proof in their rows", () => {
    expect(run.code, run.stderr).toBe(0);
    for (const id of ["honest-python", "honest-javascript"]) {
      expect(row(id), describeRow(row(id))).toMatchObject({
        status: "passed",
        passed: true,
        exit_code: 0,
        signal: null,
      });
      expect(row(id)).not.toHaveProperty("proof");
    }
  });

  it("BY DEFINITION: print the answer, then os._exit(0) / sys.exit(0) / process.exit(0) → passed (expected output, exit 0)", () => {
    for (const id of ["print-then-os-exit", "print-then-sys-exit", "javascript-print-then-process-exit"]) {
      const r = row(id);
      expect(r, describeRow(r)).toMatchObject({ status: "passed", passed: true, exit_code: 0, signal: null });
    }
  });

  it("print the answer, then SIGKILL to itself → error, not passed (the kernel reports the kill)", () => {
    const r = row("print-then-self-sigkill");
    expect(r, describeRow(r)).toMatchObject({ status: "error", passed: false, exit_code: null, signal: "SIGKILL" });
    expect(String(r["reason"])).toMatch(printedBut);
  });

  it("print the answer, then SIGTERM to itself → error (model_runtime_error)", () => {
    const r = row("print-then-sigterm-itself");
    expect(r, describeRow(r)).toMatchObject({
      status: "error",
      passed: false,
      failure_mode: "model_runtime_error",
      signal: "SIGTERM",
    });
    expect(String(r["reason"])).toMatch(printedBut);
  });

  it("print the answer, then write 32 bytes to fd 3 (no channel there any more) and exit 0 → passed; the write changes nothing", () => {
    const r = row("print-then-forge-proof-fd3");
    expect(r, describeRow(r)).toMatchObject({ status: "passed", passed: true, exit_code: 0 });
  });

  it("print the answer under a trace hook → passed (nothing guards a proof any more; the answer and exit 0 are real)", () => {
    const r = row("print-then-settrace");
    expect(r, describeRow(r)).toMatchObject({ status: "passed", passed: true, exit_code: 0 });
  });

  it("print the answer, then sleep past the deadline → timeout (our timeout, not a pass)", () => {
    const r = row("print-then-sleep-past-deadline");
    expect(r, describeRow(r)).toMatchObject({ status: "timeout", passed: false, failure_mode: "timeout" });
    expect(String(r["output"])).toContain(EXPECTED);
    expect(String(r["reason"])).toMatch(printedBut);
  });

  it("print the answer, then flood stdout past our output cap → error, safety_output_limit (not a pass)", () => {
    const r = row("print-then-flood-past-output-cap");
    expect(r, describeRow(r)).toMatchObject({
      status: "error",
      passed: false,
      limit_breach: true,
      failure_mode: "safety_output_limit",
    });
  });

  it("javascript: print the answer, then process.exit(1) from a timer → error (exit code 1)", () => {
    const r = row("javascript-print-then-exit-1-from-timer");
    expect(r, describeRow(r)).toMatchObject({ status: "error", passed: false, exit_code: 1 });
    expect(String(r["reason"])).toMatch(printedBut);
  });

  it("javascript: beforeExit raised from a timer / setImmediate, then exit 0, with no or the wrong output → failed", () => {
    for (const id of [
      "javascript-timer-beforeexit-then-exit-0-no-output",
      "javascript-setimmediate-beforeexit-then-exit-0-wrong-output",
    ]) {
      const r = row(id);
      expect(r, describeRow(r)).toMatchObject({
        status: "failed",
        passed: false,
        failure_mode: "model_wrong_output",
        exit_code: 0,
      });
    }
  });

  it("a process that outlives the program and prints the answer later → failed, model_wrong_output (late output is not collected)", () => {
    const r = row("lingering-process-prints-after-exit");
    expect(r, describeRow(r)).toMatchObject({ status: "failed", passed: false, failure_mode: "model_wrong_output" });
    expect(String(r["output"])).not.toContain(EXPECTED);
  });

  it("INHERENT: printing every candidate answer passes (the SPARC plan's rule accepts stdout that contains the expected text)", () => {
    const r = row("inherent-print-every-candidate");
    expect(r, describeRow(r)).toMatchObject({ status: "passed", passed: true, exit_code: 0 });
  });
});
