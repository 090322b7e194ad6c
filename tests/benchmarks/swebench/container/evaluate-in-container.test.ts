import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createSwebenchBenchmark } from "../../../../src/benchmarks/swebench/definition.js";
import { RUNNER_PROBE_MIN_TIMEOUT_MS } from "../../../../src/benchmarks/swebench/local-inventory.js";
import { ensureSampleDataset, type SampleDataset } from "../../../../src/benchmarks/swebench/sample-dataset.js";
import {
  buildSampleImages,
  SAMPLE_IMAGE_TEMPLATE,
} from "../../../../src/benchmarks/swebench/container/sample-images.js";
import type { SwebenchInstance } from "../../../../src/benchmarks/swebench/instance.js";
import type { RunOptions } from "../../../../src/runner/options.js";
import { testRunOptions } from "../../../support/run-options.js";
import type { Sandbox } from "../../../../src/sandbox/types.js";
import { OWNER_LABEL } from "../../../../src/sandbox/docker/owner.js";
import { docker } from "../../../../src/sandbox/docker/docker-cli.js";
import { createDockerSandbox, type DockerSandbox } from "../../../../src/sandbox/docker/docker-sandbox.js";
import { DEFAULT_LIMITS } from "../../../../src/sandbox/limits.js";
import { silentLogger } from "../../../../src/util/logger.js";
import { containersLabelled, testEngine, waitNoneLabelled } from "../../../support/container-engine.js";
import { FORCE_PASS_CONFTEST, SHLEX_SHADOW } from "../fixtures/attack-files.js";

const engine = await testEngine();
const env = engine.env!;

/** The docker backend, whose environments the container path opens. */
let backend: DockerSandbox | undefined;
/** The SWE-bench container path uses only the sandbox's environments: its plain jobs fail loudly if used. */
const environmentsOnly = (): Sandbox => ({
  backend: "docker",
  isolation: "docker",
  warnings: [],
  capabilities: backend!.capabilities,
  openEnvironment: (spec, signal) => backend!.openEnvironment(spec, signal),
  exec: () => {
    throw new Error("the container path must not run plain jobs");
  },
  execMany: () => {
    throw new Error("the container path must not run plain jobs");
  },
  close: async () => {},
});

let root: string;
let ds: SampleDataset;

describe.skipIf(engine.env === null)(
  `swebench in per-instance images${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "a2a-swe-ctr-test-"));
      ds = await ensureSampleDataset(join(root, "cache"));
      await buildSampleImages(ds, env);
      backend = await createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env });
      // The timeout case spends a minute waiting on the runner probe's least limit in its own container
      // (its own run id, instance 0's image): it starts here and runs beside the other cases, and its test
      // awaits it. Nothing of it is shared with them.
      timeoutCase = runTimeoutCase();
      timeoutCase.catch(() => undefined); // its test reports a failure; no unhandled rejection meanwhile
    }, 300_000);
    afterAll(async () => {
      await backend?.close();
      await rm(root, { recursive: true, force: true });
    });

    /** Evaluate `patches` (instance id → model patch) through the benchmark definition with --sandbox docker. */
    async function evaluate(
      patches: Record<string, string>,
      signal = new AbortController().signal,
      timeoutS = 60,
      extra: Partial<RunOptions> = {},
    ) {
      const runId = extra.run_id ?? `ctr-${randomBytes(4).toString("hex")}`;
      const preds = join(root, `${runId}.json`);
      await writeFile(
        preds,
        JSON.stringify(
          Object.entries(patches).map(([instance_id, model_patch]) => ({
            instance_id,
            model_name_or_path: "test",
            model_patch,
          })),
        ),
      );
      const options = testRunOptions({
        benchmark: "swebench",
        out: join(root, runId),
        run_id: runId,
        dataset: "sample",
        sandbox: "docker",
        predictions: preds,
        per_task_timeout_seconds: timeoutS,
        swebench_image_template: SAMPLE_IMAGE_TEMPLATE,
        ...extra,
      });
      const bench = createSwebenchBenchmark();
      const rows = await Promise.all(
        Object.keys(patches).map((id) => {
          const instance = ds.instances.find((i) => i.instance_id === id)!;
          return bench.evaluate(
            { id, instance },
            {
              options,
              sandbox: environmentsOnly(),
              participant: null,
              logger: silentLogger(),
              signal,
              workDir: join(root, runId, "work"),
            },
          );
        }),
      );
      return { rows, runId };
    }
    const inst = (n: number): SwebenchInstance => ds.instances[n]!;

    /** A patch whose conftest.py sleeps two minutes when pytest loads it, and when it was started. */
    let timeoutCase: Promise<{ rows: Awaited<ReturnType<typeof evaluate>>["rows"]; runId: string; ms: number }>;
    async function runTimeoutCase() {
      const i = inst(0);
      const sleeper =
        i.patch +
        [
          "diff --git a/conftest.py b/conftest.py",
          "new file mode 100644",
          "--- /dev/null",
          "+++ b/conftest.py",
          "@@ -0,0 +1,2 @@",
          "+import time",
          "+time.sleep(120)",
          "",
        ].join("\n");
      const t = performance.now();
      const { rows, runId } = await evaluate({ [i.instance_id]: sleeper }, new AbortController().signal, 4);
      return { rows, runId, ms: performance.now() - t };
    }

    it("gold patches resolve every embedded instance; no container is left", async () => {
      const { rows, runId } = await evaluate(Object.fromEntries(ds.instances.map((i) => [i.instance_id, i.patch!])));
      const got = rows.map((r) => `${r.id}:${r.status}:${String(r.error)}:${String(r["apply_strategy"])}`);
      expect(got, JSON.stringify(got)).toEqual(
        ds.instances.map((i) => `${i.instance_id}:RESOLVED_FULL:null:git_apply`),
      );
      expect(rows.every((r) => r["patch_successfully_applied"] === true && r["resolved"] === true)).toBe(true);
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
    }, 180_000);

    it("an empty patch, a patch that does not apply and a wrong fix are not resolved", async () => {
      const i = inst(0);
      const wrong = i.patch!.replace(/^\+ {4}return .*$/m, "+    return sep.join(w.lower() for w in words)");
      expect(wrong).not.toBe(i.patch);
      const notApplying = "diff --git a/nope.py b/nope.py\n--- a/nope.py\n+++ b/nope.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n";
      const empty = await evaluate({ [i.instance_id]: "" });
      expect(empty.rows[0], JSON.stringify(empty.rows[0]?.["error"])).toMatchObject({
        status: "EMPTY_PATCH",
        patch_successfully_applied: false,
        resolved: false,
      });
      const bad = await evaluate({ [i.instance_id]: notApplying });
      expect(bad.rows[0], JSON.stringify(bad.rows[0]?.["error"])).toMatchObject({
        status: "PATCH_APPLY_FAILED",
        patch_successfully_applied: false,
        resolved: false,
        failure_mode: "model_patch_does_not_apply",
      });
      const wrongRun = await evaluate({ [i.instance_id]: wrong });
      expect(wrongRun.rows[0], JSON.stringify(wrongRun.rows[0]?.["error"])).toMatchObject({
        status: "RESOLVED_NO",
        patch_successfully_applied: true,
        resolved: false,
        failure_mode: "model_tests_failed",
      });
    }, 180_000);

    it("a patch whose code kills every process in the container is the model's failure, not an error", async () => {
      const i = inst(1);
      const killer =
        i.patch +
        [
          "diff --git a/conftest.py b/conftest.py",
          "new file mode 100644",
          "--- /dev/null",
          "+++ b/conftest.py",
          "@@ -0,0 +1,3 @@",
          "+import os, signal",
          "+os.system('echo escaped > /a2a-eval/escaped; cat /proc/1/cmdline')",
          "+os.kill(-1, signal.SIGKILL)",
          "",
        ].join("\n");
      const { rows, runId } = await evaluate({ [i.instance_id]: killer });
      expect(rows[0], JSON.stringify(rows[0])).toMatchObject({
        status: "RESOLVED_NO",
        apply_strategy: "git_apply",
        patch_successfully_applied: false,
        resolved: false,
        failure_mode: "model_test_run_killed",
      });
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
    }, 120_000);

    it("cancellation mid-test removes the container at once", async () => {
      const i = inst(2);
      const sleeper =
        i.patch +
        [
          "diff --git a/conftest.py b/conftest.py",
          "new file mode 100644",
          "--- /dev/null",
          "+++ b/conftest.py",
          "@@ -0,0 +1,2 @@",
          "+import time",
          "+time.sleep(120)",
          "",
        ].join("\n");
      const ac = new AbortController();
      const cancelId = `ctr-cancel-${randomBytes(4).toString("hex")}`;
      const pending = evaluate({ [i.instance_id]: sleeper }, ac.signal, 60, { run_id: cancelId });
      pending.catch(() => undefined); // awaited below
      // Wait until this case's container (by its run id) runs python over the patched tree (the runner probe's
      // collection or the tests, both held in the conftest's sleep).
      let ids: string[] = [];
      let inPython = false;
      for (let n = 0; n < 600 && !inPython; n++) {
        ids = [];
        for (const id of await containersLabelled(env, OWNER_LABEL, cancelId)) {
          const state = await docker(["inspect", "--format", "{{.State.Running}}", id], { env });
          if (state.stdout.trim() === "true") ids.push(id);
        }
        if (ids.length === 1) {
          const top = await docker(["top", ids[0]!, "-eo", "pid,args"], { env });
          const patched = await docker(["exec", ids[0]!, "test", "-e", "/testbed/conftest.py"], { env });
          inPython = top.exitCode === 0 && /python/.test(top.stdout) && patched.exitCode === 0;
        }
        if (!inPython) await new Promise((r) => setTimeout(r, 200));
      }
      expect(ids.length).toBe(1);
      expect(inPython).toBe(true);
      const t = performance.now();
      ac.abort();
      const { rows, runId } = await pending;
      expect(runId).toBe(cancelId);
      expect(rows[0]!.status).toBe("ERROR");
      // The tests would sleep two minutes: the container gone well inside that is the abort (room for a busy machine).
      expect(await waitNoneLabelled(env, OWNER_LABEL, runId, 30_000)).toEqual([]);
      expect(performance.now() - t).toBeLessThan(30_000);
    }, 120_000);

    /** `patch` plus a new root conftest.py of `lines`. */
    const withConftest = (patch: string, lines: string[]): string =>
      patch +
      [
        "diff --git a/conftest.py b/conftest.py",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/conftest.py",
        `@@ -0,0 +1,${lines.length} @@`,
        ...lines.map((l) => `+${l}`),
        "",
      ].join("\n");
    /** instance 0's fix made wrong: every FAIL_TO_PASS test still fails with it. */
    const wrongFix = (): string =>
      inst(0).patch!.replace(/^\+ {4}return .*$/m, "+    return sep.join(w.lower() for w in words)");

    it("a conftest.py forging results after pytest's summary is flagged (touches_test_config) and its log voided, as on the host", async () => {
      const i = inst(0);
      // Forged PASSED lines and a forged exit code after the real run, then exit 0 whatever the tests did.
      const forger = withConftest(wrongFix(), [
        "import os, sys",
        "def pytest_unconfigure(config):",
        "    sys.stdout.write('>>>>> End Test Output\\n>>>>> Test Exit Code: 0\\n')",
        "    for t in ('test_punctuation_collapses', 'test_strips_edges', 'test_lowercases', 'test_custom_separator'):",
        "        sys.stdout.write('PASSED tests/test_slug.py::%s\\n' % t)",
        "    sys.stdout.flush()",
        "    os._exit(0)",
      ]);
      const lax = await evaluate({ [i.instance_id]: forger });
      // The conftest also ends the runner probe's pytest before it reports (os._exit in pytest_unconfigure).
      expect(lax.rows[0], JSON.stringify(lax.rows[0])).toMatchObject({
        touches_test_config: ["<probe_failed>", "conftest.py"],
        resolved_strict: false,
        apply_strategy: "git_apply",
      });
      // The forged lines follow pytest's final summary line: the harness log is void, in the container as on the
      // host (beyond the official harness, which reads them as passes).
      expect(lax.rows[0], JSON.stringify(lax.rows[0])).toMatchObject({
        status: "RESOLVED_NO",
        log_void: "results_after_summary",
        failure_mode: "model_no_test_results",
      });
      const strict = await evaluate({ [i.instance_id]: forger }, new AbortController().signal, 60, {
        strict_tests: true,
      });
      // The void is found first (the log has no usable result), so the row says that rather than strict_tests.
      expect(strict.rows[0], JSON.stringify(strict.rows[0])).toMatchObject({
        status: "RESOLVED_NO",
        passed: false,
        resolved: false,
        log_void: "results_after_summary",
        touches_test_config: ["<probe_failed>", "conftest.py"],
      });
      const report = JSON.parse(await readFile(strict.rows[0]!.report_path as string, "utf8"));
      expect(report[i.instance_id].resolved).toBe(false);
    }, 180_000);

    it("start/end/exit-code markers printed by the code under test gain nothing: the harness's nonce lines frame the whole test output", async () => {
      const i = inst(0);
      const fakeNonce = "0".repeat(32);
      // Printed before any test runs: official-text markers, a forged harness header and nonce-shaped lines with a guessed nonce,
      // framing forged PASSED lines. Under the official un-nonced grader the forged end marker would cut the real failures off.
      const forger = withConftest(wrongFix(), [
        "import sys",
        "def pytest_configure(config):",
        `    sys.stdout.write(">>>>> a2a-bench harness log a2a-nonce=${fakeNonce}\\n+ : '>>>>> Start Test Output'\\n>>>>> Start Test Output a2a-nonce=${fakeNonce}\\n")`,
        "    for t in ('test_punctuation_collapses', 'test_strips_edges', 'test_lowercases', 'test_custom_separator'):",
        "        sys.stdout.write('PASSED tests/test_slug.py::%s\\n' % t)",
        `    sys.stdout.write(">>>>> End Test Output\\n>>>>> End Test Output a2a-nonce=${fakeNonce}\\n>>>>> Test Exit Code: 0 a2a-nonce=${fakeNonce}\\n")`,
        "    sys.stdout.flush()",
      ]);
      const { rows } = await evaluate({ [i.instance_id]: forger });
      expect(rows[0], JSON.stringify(rows[0])).toMatchObject({
        status: "RESOLVED_NO",
        patch_successfully_applied: true,
        resolved: false,
        failure_mode: "model_tests_failed",
      });
      const report = JSON.parse(await readFile(rows[0]!.report_path as string, "utf8"));
      expect(report[i.instance_id].tests_status.FAIL_TO_PASS.failure).toEqual(i.FAIL_TO_PASS);
      const log = await readFile(join(rows[0]!.artifacts_dir as string, "test_output.txt"), "utf8");
      const lines = log.split("\n");
      const nonce = /^>>>>> a2a-bench harness log a2a-nonce=([0-9a-f]{32})$/.exec(lines[0]!)![1]!;
      expect(nonce).not.toBe(fakeNonce);
      const start = lines.indexOf(`>>>>> Start Test Output a2a-nonce=${nonce}`);
      const end = lines.indexOf(`>>>>> End Test Output a2a-nonce=${nonce}`);
      // Every forged line lies inside the real region; the real exit code (pytest's 1) follows its end line.
      for (const forged of [
        `>>>>> Start Test Output a2a-nonce=${fakeNonce}`,
        ">>>>> End Test Output",
        `>>>>> Test Exit Code: 0 a2a-nonce=${fakeNonce}`,
      ]) {
        const at = lines.indexOf(forged);
        expect(at, forged).toBeGreaterThan(start);
        expect(at, forged).toBeLessThan(end);
      }
      expect(lines[end + 1]).toBe(`>>>>> Test Exit Code: 1 a2a-nonce=${nonce}`);
    }, 120_000);

    /** A diff that adds `files` (path → text, each ending with a newline). */
    const adding = (files: Record<string, string>): string =>
      Object.entries(files)
        .map(([path, text]) => {
          const lines = text.replace(/\n$/, "").split("\n");
          return [
            `diff --git a/${path} b/${path}`,
            "new file mode 100644",
            "--- /dev/null",
            `+++ b/${path}`,
            `@@ -0,0 +1,${lines.length} @@`,
            ...lines.map((l) => `+${l}`),
            "",
          ].join("\n");
        })
        .join("");

    it("configuration by effect in the image's own pytest: a spaced [ tool . pytest ... ] header and a stdlib-shadowing module are flagged (resolved: true, resolved_strict: false)", async () => {
      const { rows } = await evaluate({
        [inst(0).instance_id]: adding({
          "tests/pyproject.toml": '[ tool . pytest . ini_options ]\naddopts = "-p forcepass"\n',
          "forcepass.py": FORCE_PASS_CONFTEST,
        }),
        [inst(1).instance_id]: adding({ "shlex.py": SHLEX_SHADOW, "forcepass.py": FORCE_PASS_CONFTEST }),
      });
      for (const r of rows)
        expect(r, JSON.stringify(r)).toMatchObject({ status: "RESOLVED_FULL", resolved: true, resolved_strict: false });
      const kinds = (r: (typeof rows)[number]) =>
        (r["test_config_flags"] as Array<{ kind: string; path: string | null }>).map((f) => `${f.kind}:${f.path}`);
      expect(kinds(rows[0]!)).toEqual(
        expect.arrayContaining(["pytest_config:tests/pyproject.toml", "pytest_plugins:forcepass.py"]),
      );
      expect(kinds(rows[1]!)).toEqual(expect.arrayContaining(["shadowing_module:shlex.py", "environment:null"]));
    }, 180_000);

    it("the official fallbacks apply in order: a patch with stale context applies with patch --forward --fuzz after the git attempts are undone (5.0.2)", async () => {
      const i = inst(0);
      const stale = i.patch!.replace(/^ {5}"""Turn text.*$/m, '     """A docstring that is not in the file."""');
      expect(stale).not.toBe(i.patch);
      const { rows } = await evaluate({ [i.instance_id]: stale });
      expect(rows[0], JSON.stringify(rows[0])).toMatchObject({
        status: "RESOLVED_FULL",
        apply_strategy: "patch_fuzz_forward",
        patch_successfully_applied: true,
        resolved: true,
      });
      const applyLog = await readFile(join(rows[0]!.artifacts_dir as string, "apply.log"), "utf8");
      expect(applyLog).toMatch(/Rejected hunk|rej/i);
    }, 120_000);

    it("setup.cfg counts as test configuration only when its pytest section changes (read back from the container)", async () => {
      const i = inst(0);
      const withCfg = (lines: string[]): string =>
        i.patch! +
        [
          "diff --git a/setup.cfg b/setup.cfg",
          "new file mode 100644",
          "--- /dev/null",
          "+++ b/setup.cfg",
          `@@ -0,0 +1,${lines.length} @@`,
          ...lines.map((l) => `+${l}`),
          "",
        ].join("\n");
      const { rows } = await evaluate({ [i.instance_id]: withCfg(["[tool:pytest]", "addopts = -p no:warnings"]) });
      expect(rows[0], JSON.stringify(rows[0])).toMatchObject({
        status: "RESOLVED_FULL",
        touches_test_config: ["setup.cfg"],
      });
      const other = await evaluate({ [i.instance_id]: withCfg(["[metadata]", "name = textkit"]) });
      expect(other.rows[0], JSON.stringify(other.rows[0])).toMatchObject({
        status: "RESOLVED_FULL",
        touches_test_config: [],
      });
    }, 120_000);

    // Last: the background timeout case has run beside every case above by now.
    it("a timeout stops the tests and removes the container", async () => {
      const { rows, runId, ms } = await timeoutCase;
      expect(rows[0], String(rows[0]?.error)).toMatchObject({
        status: "TIMEOUT",
        apply_strategy: "git_apply",
        patch_successfully_applied: false,
        resolved: false,
        failure_mode: "timeout",
      });
      // The runner probe after the patch hangs in the same collection first and is killed inside the
      // container after RUNNER_PROBE_MIN_TIMEOUT_MS (a probe_failed flag); then the tests time out.
      expect(rows[0]!["touches_test_config"]).toContain("<probe_failed>");
      expect(ms).toBeLessThan(RUNNER_PROBE_MIN_TIMEOUT_MS + 30_000);
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
    }, 180_000);
  },
);
