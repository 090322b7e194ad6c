/**
 * The host path: a model patch that makes test_patch fail to apply (a file where test_patch creates a
 * directory) is the model's failure; the baseline applied test_patch to the same base commit first, so an
 * infrastructure row here would let a participant void instances (and past the share limit, the run).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSwebenchBenchmark } from "../../../src/benchmarks/swebench/definition.js";
import { ensureSampleDataset, type SampleDataset } from "../../../src/benchmarks/swebench/sample-dataset.js";
import type { SwebenchInstance } from "../../../src/benchmarks/swebench/instance.js";
import { createSandbox, type Sandbox } from "../../../src/sandbox/index.js";
import { silentLogger } from "../../../src/util/logger.js";
import { testRunOptions } from "../../support/run-options.js";

/** A diff creating `path` with `lines`. */
function newFileDiff(path: string, lines: string[]): string {
  return [
    `diff --git a/${path} b/${path}`,
    "new file mode 100644",
    "--- /dev/null",
    `+++ b/${path}`,
    `@@ -0,0 +1,${lines.length} @@`,
    ...lines.map((l) => `+${l}`),
    "",
  ].join("\n");
}

describe("swebench host path: a model patch breaking test_patch", () => {
  let root: string;
  let ds: SampleDataset;
  let sandbox: Sandbox;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "swebench-breaker-"));
    ds = await ensureSampleDataset(join(root, "cache"));
    sandbox = await createSandbox({ backend: "local", logger: silentLogger() });
  }, 120_000);
  afterAll(async () => {
    await sandbox?.close();
    await rm(root, { recursive: true, force: true });
  });

  it("a file where test_patch creates a directory is the model's failure, not an infrastructure row", async () => {
    const base = ds.instances[0]!;
    const instance: SwebenchInstance = {
      ...base,
      test_patch:
        (base.test_patch.endsWith("\n") ? base.test_patch : base.test_patch + "\n") +
        newFileDiff("tests/extra/test_extra.py", ["def test_extra():", "    assert True"]),
    };
    const predictions = join(root, "preds.json");
    await writeFile(
      predictions,
      JSON.stringify([
        {
          instance_id: instance.instance_id,
          model_name_or_path: "test",
          model_patch: base.patch! + newFileDiff("tests/extra", ["not a directory"]),
        },
      ]),
    );
    const options = testRunOptions({
      benchmark: "swebench",
      out: join(root, "out"),
      run_id: "breaker",
      dataset: "sample",
      repos_dir: ds.reposDir,
      predictions,
      per_task_timeout_seconds: 60,
    });
    const bench = createSwebenchBenchmark();
    const workDir = join(root, "work");
    const row = await bench.evaluate(
      { id: instance.instance_id, instance },
      { options, sandbox, participant: null, logger: silentLogger(), signal: new AbortController().signal, workDir },
    );
    await bench.endRun!({ options, logger: silentLogger(), workDir });
    expect(row, JSON.stringify(row["error"])).toMatchObject({
      status: "RESOLVED_NO",
      passed: false,
      resolved: false,
      patch_successfully_applied: true,
      failure_mode: "model_breaks_test_patch",
    });
  }, 180_000);
});
