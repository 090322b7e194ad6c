/**
 * A model patch that makes test_patch fail to apply (a file where test_patch creates a directory) must be
 * the model's failure: the baseline applied test_patch to the base commit in the same environment, so an
 * infrastructure row here would let a participant void instances (and past the share limit, the run).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createSwebenchBenchmark } from "../../../../src/benchmarks/swebench/definition.js";
import { ensureSampleDataset, type SampleDataset } from "../../../../src/benchmarks/swebench/sample-dataset.js";
import {
  buildSampleImages,
  SAMPLE_IMAGE_TEMPLATE,
} from "../../../../src/benchmarks/swebench/container/sample-images.js";
import type { SwebenchInstance } from "../../../../src/benchmarks/swebench/instance.js";
import { createDockerSandbox, type DockerSandbox } from "../../../../src/sandbox/docker/docker-sandbox.js";
import { OWNER_LABEL } from "../../../../src/sandbox/docker/owner.js";
import { DEFAULT_LIMITS } from "../../../../src/sandbox/limits.js";
import { silentLogger } from "../../../../src/util/logger.js";
import { testRunOptions } from "../../../support/run-options.js";
import { testEngine, waitNoneLabelled } from "../../../support/container-engine.js";

const engine = await testEngine();
const env = engine.env!;

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

describe.skipIf(engine.env === null)(
  `swebench: a model patch breaking test_patch${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    let root: string;
    let ds: SampleDataset;
    let backend: DockerSandbox | undefined;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "a2a-swe-breaker-"));
      ds = await ensureSampleDataset(join(root, "cache"));
      await buildSampleImages(ds, env);
      backend = await createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env });
    }, 300_000);
    afterAll(async () => {
      await backend?.close();
      await rm(root, { recursive: true, force: true });
    });

    it("a file where test_patch creates a directory is the model's failure, not an infrastructure row", async () => {
      const base = ds.instances[0]!;
      // The same image and repository, with a test_patch that also creates a test file in a new directory.
      const instance: SwebenchInstance = {
        ...base,
        test_patch:
          (base.test_patch.endsWith("\n") ? base.test_patch : base.test_patch + "\n") +
          newFileDiff("tests/extra/test_extra.py", ["def test_extra():", "    assert True"]),
      };
      const blocker = newFileDiff("tests/extra", ["not a directory"]);
      const runId = `breaker-${randomBytes(4).toString("hex")}`;
      const predictions = join(root, `${runId}.json`);
      await writeFile(
        predictions,
        JSON.stringify([
          { instance_id: instance.instance_id, model_name_or_path: "test", model_patch: base.patch! + blocker },
        ]),
      );
      const options = testRunOptions({
        benchmark: "swebench",
        out: join(root, runId),
        run_id: runId,
        dataset: "sample",
        sandbox: "docker",
        predictions,
        per_task_timeout_seconds: 60,
        swebench_image_template: SAMPLE_IMAGE_TEMPLATE,
      });
      const row = await createSwebenchBenchmark().evaluate(
        { id: instance.instance_id, instance },
        {
          options,
          sandbox: backend!,
          participant: null,
          logger: silentLogger(),
          signal: new AbortController().signal,
          workDir: join(root, runId, "work"),
        },
      );
      expect(row, JSON.stringify(row["error"])).toMatchObject({
        status: "RESOLVED_NO",
        passed: false,
        resolved: false,
        patch_successfully_applied: true,
        failure_mode: "model_breaks_test_patch",
      });
      expect(await waitNoneLabelled(env, OWNER_LABEL, runId, 5000)).toEqual([]);
    }, 300_000);
  },
);
