import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ensureSampleDataset, type SampleDataset } from "../../../../src/benchmarks/swebench/sample-dataset.js";
import {
  buildSampleImages,
  SAMPLE_IMAGE_TEMPLATE,
} from "../../../../src/benchmarks/swebench/container/sample-images.js";
import { OWNER_LABEL } from "../../../../src/sandbox/docker/owner.js";
import { containersLabelled, testEngine, waitNoneLabelled } from "../../../support/container-engine.js";

const engine = await testEngine();
const env = engine.env!;
const CLI = fileURLToPath(new URL("../../../../dist/cli.js", import.meta.url));

let root: string;
let ds: SampleDataset;

// Uses dist/ (npm run build), as the other process tests do.
describe.skipIf(engine.env === null)(
  `runner SIGKILL with --sandbox docker${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "a2a-swe-kill-"));
      ds = await ensureSampleDataset(join(root, "cache"));
      await buildSampleImages(ds, env);
    }, 300_000);
    afterAll(async () => {
      await rm(root, { recursive: true, force: true });
    });

    it("leaves no labelled container behind when the runner is SIGKILLed mid-test", async () => {
      const inst = ds.instances[0]!;
      const sleeper =
        inst.patch +
        [
          "diff --git a/conftest.py b/conftest.py",
          "new file mode 100644",
          "--- /dev/null",
          "+++ b/conftest.py",
          "@@ -0,0 +1,2 @@",
          "+import time",
          "+time.sleep(300)",
          "",
        ].join("\n");
      const preds = join(root, "preds.json");
      await writeFile(
        preds,
        JSON.stringify([{ instance_id: inst.instance_id, model_name_or_path: "t", model_patch: sleeper }]),
      );
      const runId = `kill-${randomBytes(4).toString("hex")}`;
      const child = spawn(
        process.execPath,
        [
          CLI,
          "run",
          "swebench",
          "--sandbox",
          "docker",
          "--dataset",
          "sample",
          "--predictions",
          preds,
          "--swebench-image-template",
          SAMPLE_IMAGE_TEMPLATE,
          "--per-task-timeout-seconds",
          "600",
          "--run-id",
          runId,
          "--out",
          join(root, "out"),
        ],
        {
          env: { ...process.env, ...env, A2A_BENCH_CACHE_DIR: join(root, "cache"), LOG_LEVEL: "silent" },
          stdio: "ignore",
        },
      );
      let running: string[] = [];
      for (let i = 0; i < 600 && running.length === 0 && child.exitCode === null; i++) {
        running = await containersLabelled(env, OWNER_LABEL, runId);
        if (running.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(running.length, `runner exited ${child.exitCode} before its container ran`).toBe(1);
      await new Promise((r) => setTimeout(r, 1500)); // inside the test command by now
      child.kill("SIGKILL");
      expect(await waitNoneLabelled(env, OWNER_LABEL, runId, 5000)).toEqual([]);
    }, 120_000);
  },
);
