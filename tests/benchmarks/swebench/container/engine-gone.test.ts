import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SwebenchInstance } from "../../../../src/benchmarks/swebench/instance.js";
import { testRunOptions } from "../../../support/run-options.js";
import type { Sandbox } from "../../../../src/sandbox/types.js";
import type { Environment, EnvironmentExecOutcome } from "../../../../src/sandbox/environment.js";
import { evaluateInContainer } from "../../../../src/benchmarks/swebench/container/evaluate.js";
import { silentLogger } from "../../../../src/util/logger.js";

// The environment and its backend's health, scripted: the engine cannot be stopped under a test here (it is shared).
const state = {
  engineUp: true,
  testStep: { output: "", exitCode: 137 } as Pick<EnvironmentExecOutcome, "output" | "exitCode">,
};
const scripted: Environment = {
  id: "scripted",
  exec: async (argv) => {
    const step = argv[argv.length - 1]!;
    const base = { timedOut: false, isCanceled: false, durationMs: 1 };
    if (step.endsWith("/apply.sh")) return { ...base, output: "Applied patch x.py cleanly.\n", exitCode: 10 };
    if (step.endsWith("/test-patch.sh")) return { ...base, output: "Applied patch t.py cleanly.\n", exitCode: 0 };
    // The inventory probes and the undo of the baseline's test_patch: quiet successes.
    if (/\/(?:static-probe|runner-probe-\w+|undo-test-patch)\.sh$/.test(step))
      return { ...base, output: "", exitCode: 0 };
    return { ...base, ...state.testStep };
  },
  readFile: async () => "",
  writeFile: async () => {},
  backendProblem: async () =>
    state.engineUp ? null : "the container engine stopped answering: no container engine answers (test)",
  close: async () => {},
};
/** A sandbox whose only capability is the scripted environment. */
const sandbox: Sandbox = {
  backend: "docker",
  isolation: "docker",
  warnings: [],
  capabilities: new Set(["environments"]),
  openEnvironment: async () => scripted,
  exec: () => {
    throw new Error("the container path must not run plain jobs");
  },
  execMany: () => {
    throw new Error("the container path must not run plain jobs");
  },
  close: async () => {},
};

const inst: SwebenchInstance = {
  instance_id: "o__r-1",
  repo: "o/r",
  base_commit: "abc",
  problem_statement: "",
  test_patch: "diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-x\n+y\n",
  FAIL_TO_PASS: ["t.py::f"],
  PASS_TO_PASS: [],
};
let root: string;

describe("swebench container: who a failed test run is charged to", () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "a2a-swe-gone-"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const run = () => {
    const options = testRunOptions({
      benchmark: "swebench",
      out: root,
      run_id: "r",
      sandbox: "docker",
      per_task_timeout_seconds: 5,
    });
    return evaluateInContainer(
      inst,
      "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n",
      { modelName: "m", submitted: true },
      {
        options,
        sandbox,
        participant: null,
        logger: silentLogger(),
        signal: new AbortController().signal,
        workDir: root,
      },
      root,
    );
  };

  it("killed with the engine still answering: the model's failure", async () => {
    state.engineUp = true;
    expect(await run()).toMatchObject({
      status: "RESOLVED_NO",
      failureMode: "model_test_run_killed",
      error: null,
      applyStrategy: "git_apply",
    });
  });
  it("killed because the engine went away: an infrastructure error, never a score", async () => {
    state.engineUp = false;
    const v = await run();
    expect(v).toMatchObject({ status: "ERROR", failureMode: "infrastructure_sandbox" });
    expect(v.error).toMatch(/engine stopped answering/);
  });
  it("the engine is not asked after a passing run", async () => {
    state.engineUp = false;
    state.testStep = { output: "PASSED t.py::f\n", exitCode: 0 };
    expect(await run()).toMatchObject({ status: "RESOLVED_FULL", error: null });
  });
});
