import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, readdir, symlink } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { spawn } from "node:child_process";
import { createSwebenchBenchmark } from "../../../src/benchmarks/swebench/definition.js";
import { ensureSampleDataset, type SampleDataset } from "../../../src/benchmarks/swebench/sample-dataset.js";
import { runReport } from "../../../src/benchmarks/swebench/report.js";
import type { ExecOutcome, ExecRequest, Sandbox } from "../../../src/sandbox/types.js";
import type { Participant } from "../../../src/a2a/shared/participant.js";
import type { RunOptions } from "../../../src/runner/options.js";
import { testRunOptions } from "../../support/run-options.js";
import type { ItemResult } from "../../../src/runner/benchmark.js";
import { silentLogger } from "../../../src/util/logger.js";
import { gitOk } from "../../../src/benchmarks/swebench/git.js";

/**
 * Test double for the sandbox: runs the (trusted, project-written) sample
 * test commands directly with bash in workDir, with a wall-clock limit. The
 * grading flow under test is the same; the real sandbox is exercised in
 * sandboxed.test.ts.
 */
function hostSandbox(): Sandbox {
  const exec = (req: ExecRequest): Promise<ExecOutcome> =>
    new Promise((resolve) => {
      const started = Date.now();
      const child = spawn("bash", ["-c", req.code], {
        cwd: req.workDir,
        env: { ...process.env, ...req.env },
        detached: true,
      });
      let out = "";
      let err = "";
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        process.kill(-child.pid!, "SIGKILL");
      }, req.timeoutMs);
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (err += d));
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        resolve({
          exitCode: code,
          signal,
          timedOut,
          isCanceled: false,
          outputLimitExceeded: false,
          durationMs: Date.now() - started,
          stdoutTail: out,
          stderrTail: err,
        });
      });
    });
  return {
    backend: "local",
    isolation: "none",
    warnings: [],
    capabilities: new Set(["host-workdir"]),
    exec,
    execMany: (reqs) => Promise.all(reqs.map(exec)),
    close: async () => {},
  };
}

function fixedParticipant(
  reply: (data: Record<string, unknown> | undefined, text: string) => string,
): Participant & { asked: string[] } {
  const asked: string[] = [];
  return {
    url: "http://127.0.0.1:1/",
    asked,
    async ask(req) {
      asked.push(req.text);
      return { text: reply(req.data, req.text), data: [], state: "completed" };
    },
    async close() {},
  };
}

let root: string;
let ds: SampleDataset;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "swebench-eval-"));
  ds = await ensureSampleDataset(join(root, "cache"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function options(extra: Partial<RunOptions> = {}): RunOptions {
  return testRunOptions({
    benchmark: "swebench",
    out: join(root, "out"),
    run_id: "t",
    dataset: "sample",
    repos_dir: ds.reposDir,
    per_task_timeout_seconds: 30,
    agent_timeout_seconds: 10,
    ...extra,
  });
}

/** Evaluate one after another, then end the run as the runner does. */
async function evaluateAll(
  participant: Participant | null,
  opts: RunOptions,
  instances = ds.instances,
): Promise<ItemResult[]> {
  const bench = createSwebenchBenchmark();
  const rows: ItemResult[] = [];
  const workDir = join(root, "work");
  for (const instance of instances) {
    rows.push(
      await bench.evaluate(
        { id: instance.instance_id, instance },
        {
          options: opts,
          sandbox: hostSandbox(),
          participant,
          logger: silentLogger(),
          signal: new AbortController().signal,
          workDir,
        },
      ),
    );
  }
  await bench.endRun!({ options: opts, logger: silentLogger(), workDir });
  return rows;
}

/**
 * One run of the gold patches over the whole sample set, by a participant that wraps them in prose, taken
 * once: the case on resolution and the case on the files the run writes both only read it.
 */
let goldRun: Promise<{ rows: ItemResult[]; opts: RunOptions; asked: string[] }> | undefined;
function sharedGoldRun(): Promise<{ rows: ItemResult[]; opts: RunOptions; asked: string[] }> {
  goldRun ??= (async () => {
    const byId = new Map(ds.instances.map((i) => [i.instance_id, i.patch!]));
    const p = fixedParticipant((data) => "Here you go:\n```diff\n" + byId.get(String(data?.["instance_id"])) + "```\n");
    const opts = options({ out: join(root, "out-files"), run_id: "r1" });
    return { rows: await evaluateAll(p, opts), opts, asked: p.asked };
  })();
  return goldRun;
}

describe("swebench evaluate (sample set)", () => {
  it("the sample set has real commits and fails before the fix", async () => {
    expect(ds.instances.length).toBeGreaterThanOrEqual(3);
    for (const inst of ds.instances) {
      expect(inst.base_commit).toMatch(/^[0-9a-f]{40}$/);
      const dir = join(ds.reposDir, inst.repo.replace("/", "__"));
      expect((await gitOk(dir, ["cat-file", "-t", inst.base_commit])).trim()).toBe("commit");
    }
    // Deterministic: building again elsewhere gives the same hashes.
    const again = await ensureSampleDataset(join(root, "cache2"));
    expect(again.instances.map((i) => i.base_commit)).toEqual(ds.instances.map((i) => i.base_commit));
  });

  it("gold patches from the participant resolve 100 %, with SWE-bench reports and no leftover worktrees", async () => {
    const { rows, asked } = await sharedGoldRun();
    expect(rows.map((r) => r.status)).toEqual(ds.instances.map(() => "RESOLVED_FULL"));
    expect(asked[0]).toContain("slugify");
    expect(asked[0]).not.toContain(ds.instances[0]!.patch!.split("\n").find((l) => l.startsWith("+    words")));
    const report = JSON.parse(await readFile(rows[0]!.report_path as string, "utf8"));
    expect(report[rows[0]!.id]).toMatchObject({
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved: true,
    });
    expect(report[rows[0]!.id].tests_status.FAIL_TO_PASS.success).toEqual(ds.instances[0]!.FAIL_TO_PASS);
    expect(runReport(rows).resolved_instances).toBe(ds.instances.length);
    for (const inst of ds.instances) {
      const list = await gitOk(join(ds.reposDir, inst.repo.replace("/", "__")), ["worktree", "list"]);
      expect(list.trim().split("\n")).toHaveLength(1);
    }
    expect(existsSync(join(root, "work", "swebench")) ? await readdir(join(root, "work", "swebench")) : []).toEqual([]);
  });

  it("predictions file: half-fixing patch → RESOLVED_PARTIAL, non-applying → PATCH_APPLY_FAILED, null → EMPTY_PATCH", async () => {
    const [a, b, c] = ds.instances;
    // Applies, fixes one of the two FAIL_TO_PASS tests only.
    const partial = a!
      .patch!.replace(/^\+ {4}words = .*$/m, '+    words = re.split(r"[^A-Za-z0-9]", text)')
      .replace(/^\+ {4}return .*$/m, "+    return sep.join(w.lower() for w in words).strip(sep)");
    const bad =
      "diff --git a/nope.py b/nope.py\n--- a/nope.py\n+++ b/nope.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n y = 3\n";
    const { writeFile } = await import("node:fs/promises");
    const predPath = join(root, "preds.jsonl");
    await writeFile(
      predPath,
      [
        { instance_id: a!.instance_id, model_name_or_path: "m", model_patch: partial },
        { instance_id: b!.instance_id, model_name_or_path: "m", model_patch: bad },
        { instance_id: c!.instance_id, model_name_or_path: "m", model_patch: null },
      ]
        .map((x) => JSON.stringify(x))
        .join("\n"),
    );
    const rows = await evaluateAll(null, options({ predictions: predPath }));
    expect(rows.map((r) => r.status)).toEqual(["RESOLVED_PARTIAL", "PATCH_APPLY_FAILED", "EMPTY_PATCH"]);
    expect(rows[0]).toMatchObject({
      patch_successfully_applied: true,
      resolved: false,
      failure_mode: "model_tests_failed",
      model_name_or_path: "m",
    });
    expect(rows[1]).toMatchObject({ patch_exists: true, patch_successfully_applied: false });
    expect(rows[2]).toMatchObject({ patch_is_None: true, patch_exists: false });
  });

  it("a wrong patch that breaks a PASS_TO_PASS test is not resolved", async () => {
    const inst = ds.instances[0]!;
    const wrong = inst.patch!.replace(/^\+ {4}return .*$/m, "+    return sep.join(w.upper() for w in words if w)");
    const rows = await evaluateAll(
      fixedParticipant(() => "```diff\n" + wrong + "```"),
      options(),
      [inst],
    );
    expect(rows[0]).toMatchObject({ status: "RESOLVED_NO", passed: false, patch_successfully_applied: true });
    const report = JSON.parse(await readFile(rows[0]!.report_path as string, "utf8"));
    expect(report[inst.instance_id].tests_status.PASS_TO_PASS.failure).toContain("tests/test_slug.py::test_lowercases");
  });

  it("a hanging test hits the time limit → TIMEOUT, counted as an error instance", async () => {
    const inst = ds.instances[0]!;
    const hanging = {
      ...inst,
      instance_id: "hang-1",
      test_patch: inst.test_patch.replace(
        'assert slugify("Hello, World!") == "hello-world"',
        "import time; time.sleep(600)",
      ),
    };
    const p = fixedParticipant(() => "```diff\n" + inst.patch + "```");
    const started = Date.now();
    const rows = await evaluateAll(p, options({ per_task_timeout_seconds: 3 }), [hanging]);
    // The test would sleep ten minutes: ending well inside that is the per-task timeout, on any machine.
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(rows[0]).toMatchObject({ status: "TIMEOUT", passed: false, failure_mode: "timeout" });
    expect(runReport(rows).error_ids).toEqual(["hang-1"]);
  });

  it("a test tool missing in the sandbox is a typed infrastructure ERROR found before the patch, never a model score", async () => {
    const inst = ds.instances[0]!;
    const bench = createSwebenchBenchmark();
    const broken: Sandbox = {
      ...hostSandbox(),
      exec: async () => ({
        exitCode: 1,
        signal: null,
        timedOut: false,
        isCanceled: false,
        outputLimitExceeded: false,
        durationMs: 5,
        stdoutTail: "",
        stderrTail: "ModuleNotFoundError: No module named 'pytest'\n",
      }),
    };
    const p = fixedParticipant(() => "```diff\n" + inst.patch + "```");
    const row = await bench.evaluate(
      { id: inst.instance_id, instance: inst },
      {
        options: options(),
        sandbox: broken,
        participant: p,
        logger: silentLogger(),
        signal: new AbortController().signal,
        workDir: join(root, "work"),
      },
    );
    expect(row).toMatchObject({
      status: "ERROR",
      failure_mode: "infrastructure_tool_missing",
      error_code: "E_SWEBENCH_TOOL_MISSING",
      submitted: false,
    });
    expect(String(row.error)).toContain("cannot import pytest");
    expect(p.asked).toEqual([]);
  });

  it("an environment without the tests' interpreter is graded as the named release grades it: completed and unresolved, never an error instance", async () => {
    const inst = ds.instances[0]!;
    // A sandbox whose PATH holds no python3: the tool probe exits 127, the test command says
    // `python3: command not found` (exit 127), as an official image without its interpreter would.
    const noPython = await mkdtemp(join(root, "nopython-"));
    await symlink("/bin/bash", join(noPython, "bash"));
    const real = hostSandbox();
    const sandbox: Sandbox = {
      ...real,
      exec: (req) => real.exec({ ...req, env: { ...req.env, PATH: noPython } }),
    };
    const rows: Record<string, ItemResult> = {};
    for (const rules of ["5.0.2", "4.1.0"] as const) {
      const bench = createSwebenchBenchmark();
      rows[rules] = await bench.evaluate(
        { id: inst.instance_id, instance: inst },
        {
          options: options({ swebench_rules: rules, out: join(root, `out-nopy-${rules}`) }),
          sandbox,
          participant: fixedParticipant(() => "```diff\n" + inst.patch + "```"),
          logger: silentLogger(),
          signal: new AbortController().signal,
          workDir: join(root, `work-nopy-${rules}`),
        },
      );
    }
    // 5.0.2: no sign a suite ran, the log is void (report.json: not applied, not resolved).
    expect(rows["5.0.2"]).toMatchObject({
      status: "RESOLVED_NO",
      resolved: false,
      resolved_strict: false,
      patch_successfully_applied: false,
      log_void: "no_suite_evidence",
      failure_mode: "model_no_test_results",
      interpreter_missing: true,
      submitted: true,
    });
    // 4.1.0: the log parses to no test, every FAIL_TO_PASS test is missing (applied, not resolved).
    expect(rows["4.1.0"]).toMatchObject({
      status: "RESOLVED_NO",
      resolved: false,
      patch_successfully_applied: true,
      failure_mode: "model_tests_failed",
      interpreter_missing: true,
    });
    for (const r of Object.values(rows)) {
      const rep = runReport([r]);
      expect(rep).toMatchObject({
        completed_ids: [inst.instance_id],
        unresolved_ids: [inst.instance_id],
        error_ids: [],
      });
      const log = await readFile(join(r.artifacts_dir as string, "test_output.txt"), "utf8");
      expect(log).toMatch(/python3: command not found/);
    }
  });

  it("with the tools present, a test run that reports no test (the patch broke it) is the model's: RESOLVED_NO, log void", async () => {
    const inst = ds.instances[0]!;
    const bench = createSwebenchBenchmark();
    const real = hostSandbox();
    // The probe (no workDir) runs for real; the test run in the tree prints nothing and fails.
    const silent: Sandbox = {
      ...real,
      exec: async (req) =>
        req.workDir === undefined
          ? real.exec(req)
          : {
              exitCode: 2,
              signal: null,
              timedOut: false,
              isCanceled: false,
              outputLimitExceeded: false,
              durationMs: 5,
              stdoutTail: "ImportError while loading conftest\n",
              stderrTail: "",
            },
    };
    const row = await bench.evaluate(
      { id: inst.instance_id, instance: inst },
      {
        options: options(),
        sandbox: silent,
        participant: fixedParticipant(() => "```diff\n" + inst.patch + "```"),
        logger: silentLogger(),
        signal: new AbortController().signal,
        workDir: join(root, "work"),
      },
    );
    expect(row).toMatchObject({
      status: "RESOLVED_NO",
      failure_mode: "model_no_test_results",
      log_void: "no_suite_evidence",
      patch_successfully_applied: false,
      submitted: true,
    });
  });

  it("a run cancelled while the tests ran is an infrastructure ERROR, not a void log held against the patch", async () => {
    const inst = ds.instances[0]!;
    const bench = createSwebenchBenchmark();
    const real = hostSandbox();
    const cancelled: Sandbox = {
      ...real,
      exec: async (req) =>
        req.workDir === undefined
          ? real.exec(req)
          : {
              exitCode: null,
              signal: "SIGTERM",
              timedOut: false,
              isCanceled: true,
              outputLimitExceeded: false,
              durationMs: 5,
              stdoutTail: "",
              stderrTail: "",
            },
    };
    const row = await bench.evaluate(
      { id: inst.instance_id, instance: inst },
      {
        options: options(),
        sandbox: cancelled,
        participant: fixedParticipant(() => "```diff\n" + inst.patch + "```"),
        logger: silentLogger(),
        signal: new AbortController().signal,
        workDir: join(root, "work"),
      },
    );
    expect(row).toMatchObject({ status: "ERROR", failure_mode: "infrastructure_cancelled", passed: false });
  });

  /** A diff of `files` written over the instance's base commit (a scratch clone of the sample repository). */
  async function diffOver(inst: (typeof ds.instances)[number], files: Record<string, string>): Promise<string> {
    const { writeFile, mkdir } = await import("node:fs/promises");
    const scratch = await mkdtemp(join(root, "diff-"));
    await gitOk(root, ["clone", "--quiet", join(ds.reposDir, inst.repo.replace("/", "__")), scratch]);
    await gitOk(scratch, ["checkout", "--quiet", inst.base_commit]);
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(dirname(join(scratch, rel)), { recursive: true });
      await writeFile(join(scratch, rel), text);
    }
    await gitOk(scratch, ["add", "-A"]);
    const diff = await gitOk(scratch, ["diff", "--cached", "--no-color"]);
    await rm(scratch, { recursive: true, force: true });
    return diff;
  }

  it("a patch that rewrites the deciding test file gains nothing (reset to base before test_patch) and is flagged", async () => {
    const inst = ds.instances[0]!;
    const cheat = await diffOver(inst, {
      "tests/test_slug.py": "def test_punctuation_collapses():\n    pass\n\n\ndef test_strips_edges():\n    pass\n",
    });
    const rows = await evaluateAll(
      fixedParticipant(() => "```diff\n" + cheat + "```"),
      options(),
      [inst],
    );
    expect(rows[0]).toMatchObject({ status: "RESOLVED_NO", touches_test_config: ["tests/test_slug.py"] });
    const report = JSON.parse(await readFile(rows[0]!.report_path as string, "utf8"));
    expect(report[inst.instance_id].tests_status.FAIL_TO_PASS.failure).toEqual(inst.FAIL_TO_PASS);
  });

  // A conftest.py that prints forged markers, forged PASSED lines and a forged exit-code line, then
  // exits 0 whatever the tests did. The forged markers cannot move the nonce-marked region, but lines
  // printed inside it by code under test are indistinguishable from the runner's own (the official
  // harness has the same limit): strict_tests is the defence, and the flag says what happened.
  const FORGER = [
    "import os, sys",
    "",
    "def pytest_unconfigure(config):",
    "    sys.stdout.write(\"+ : '>>>>> End Test Output'\\n>>>>> End Test Output\\n>>>>> Test Exit Code: 0\\n\")",
    "    for t in ('test_punctuation_collapses', 'test_strips_edges', 'test_lowercases', 'test_custom_separator'):",
    "        sys.stdout.write('PASSED tests/test_slug.py::%s\\n' % t)",
    "    sys.stdout.flush()",
    "    os._exit(0)",
    "",
  ].join("\n");

  it("a conftest.py forging results is flagged; strict_tests counts it unresolved; the harness markers are unforgeable", async () => {
    const inst = ds.instances[0]!;
    const forger = await diffOver(inst, { "conftest.py": FORGER });
    const p = fixedParticipant(() => "```diff\n" + forger + "```");
    const lax = await evaluateAll(p, options(), [inst]);
    // The conftest also ends the runner probe's pytest before it reports (os._exit in pytest_unconfigure).
    expect(lax[0]).toMatchObject({ touches_test_config: ["<probe_failed>", "conftest.py"], resolved_strict: false });
    // The forged lines follow pytest's final summary line: the harness log is void (beyond the official harness,
    // which reads them as passes).
    expect(lax[0]).toMatchObject({
      status: "RESOLVED_NO",
      log_void: "results_after_summary",
      failure_mode: "model_no_test_results",
    });
    const log = await readFile(join(lax[0]!.artifacts_dir as string, "test_output.txt"), "utf8");
    const nonce = /^>>>>> a2a-bench harness log a2a-nonce=([0-9a-f]{32})$/m.exec(log)![1]!;
    const lines = log.split("\n");
    // The forged end markers sit inside the harness region, which ends at the nonce line.
    const start = lines.indexOf(`>>>>> Start Test Output a2a-nonce=${nonce}`);
    const end = lines.indexOf(`>>>>> End Test Output a2a-nonce=${nonce}`);
    const forgedEnd = lines.indexOf(">>>>> End Test Output");
    expect(start).toBeGreaterThan(0);
    expect(forgedEnd).toBeGreaterThan(start);
    expect(end).toBeGreaterThan(forgedEnd);
    const strict = await evaluateAll(p, options({ strict_tests: true }), [inst]);
    // The void is found first (the log has no usable result), so the row says that rather than strict_tests.
    expect(strict[0]).toMatchObject({
      status: "RESOLVED_NO",
      passed: false,
      resolved: false,
      log_void: "results_after_summary",
      failure_mode: "model_no_test_results",
    });
    const report = JSON.parse(await readFile(strict[0]!.report_path as string, "utf8"));
    expect(report[inst.instance_id].resolved).toBe(false);
  });

  it("without the exit-0 trick, 5.0.2's exit-code check voids a run whose forged PASSED lines hide the failures (4.1.0: the summary check does)", async () => {
    const inst = ds.instances[0]!;
    const forger = await diffOver(inst, { "conftest.py": FORGER.replace("    os._exit(0)\n", "") });
    const rows = await evaluateAll(
      fixedParticipant(() => "```diff\n" + forger + "```"),
      options(),
      [inst],
    );
    expect(rows[0]).toMatchObject({
      status: "RESOLVED_NO",
      log_void: "exit_code_mismatch",
      failure_mode: "model_no_test_results",
    });
    const v4 = await evaluateAll(
      fixedParticipant(() => "```diff\n" + forger + "```"),
      options({ swebench_rules: "4.1.0" }),
      [inst],
    );
    // 4.1.0 has no exit-code check; the harness log's summary check (under every rules version) still voids it.
    expect(v4[0]).toMatchObject({ status: "RESOLVED_NO", grading_rules: "4.1.0", log_void: "results_after_summary" });
  });

  it("writes the run report (official shape) and the run's predictions next to the results", async () => {
    const { aggregateSwebench } = await import("../../../src/benchmarks/swebench/report.js");
    const { checkAgainst } = await import("../../../src/util/schema.js");
    const { parsePredictions } = await import("../../../src/benchmarks/swebench/predictions.js");
    const { rows, opts } = await sharedGoldRun();
    const agg = aggregateSwebench(rows, opts);
    expect(agg["swebench_report_path"]).toBe(join(root, "out-files", "swebench", "a2a-participant.r1.json"));
    const written = JSON.parse(await readFile(agg["swebench_report_path"] as string, "utf8"));
    expect(written).toMatchObject({
      resolved_instances: ds.instances.length,
      submitted_instances: ds.instances.length,
      schema_version: 2,
    });
    expect(checkAgainst("swebench_run_report.schema.json", written)).toEqual([]);
    const preds = parsePredictions(
      await readFile(join(root, "out-files", "swebench", "predictions.jsonl"), "utf8"),
      "p",
    );
    expect([...preds.keys()].sort()).toEqual(ds.instances.map((i) => i.instance_id).sort());
    expect(preds.get(ds.instances[0]!.instance_id)!.model_patch).toBe(ds.instances[0]!.patch);
    for (const [id, p] of preds) expect(checkAgainst("swebench_prediction.schema.json", p), id).toEqual([]);
  });

  it("a participant that answers with prose only gets EMPTY_PATCH", async () => {
    const rows = await evaluateAll(
      fixedParticipant(() => "Sorry, I cannot find the bug."),
      options(),
      ds.instances.slice(0, 1),
    );
    expect(rows[0]).toMatchObject({ status: "EMPTY_PATCH", patch_is_None: true });
  });
});
