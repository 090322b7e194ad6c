/**
 * HumanEval interactive on the local backend (bwrap environments): the same episode flow as on docker, with the
 * environment's working tree empty but for the prompt and the task text, graded by the trusted checker on the host.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createPurpleApp } from "../../../src/purple/app.js";
import { createSolver } from "../../../src/purple/solvers/index.js";
import type { ServedApp } from "../../../src/a2a/serve.js";
import { runBenchmark } from "../../../src/runner/run-benchmark.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { silentLogger } from "../../../src/util/logger.js";
import type { HumanEvalRow } from "../../../src/benchmarks/humaneval/row.js";
import { serveOnLoopback } from "../../a2a/helpers.js";
import { checkAgainst } from "../../../src/util/schema.js";
import { startFakeParticipant, type FakeParticipant } from "../../a2a/fake-participant.js";
import { deepArray } from "../../a2a/bombs.js";

const probe = await createSandbox({ backend: "local", logger: silentLogger() });
const skip = probe.capabilities.has("environments") ? null : `no environments here (isolation ${probe.isolation})`;
await probe.close();

describe.skipIf(skip !== null)(`humaneval interactive on local${skip ? ` (skipped: ${skip})` : ""}`, () => {
  let root: string;
  const served: ServedApp[] = [];
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "a2a-he-local-episode-"));
  });
  afterAll(async () => {
    await Promise.all(served.map((s) => s.close()));
    await rm(root, { recursive: true, force: true });
  });

  async function run(mode: string | FakeParticipant) {
    let url: string;
    if (typeof mode === "string") {
      const purple = await serveOnLoopback(async (card) => createPurpleApp({ card, solver: await createSolver(mode) }));
      served.push(purple);
      url = purple.url;
    } else url = mode.url;
    const runId = `he-local-${randomBytes(4).toString("hex")}`;
    const out = join(root, runId);
    const result = await runBenchmark(
      {
        benchmark: "humaneval",
        run_id: runId,
        dataset: "sample",
        sandbox: "local",
        agent: url,
        interaction: "interactive",
        samples: 2,
        concurrency: 2,
        max_turns: 10,
        per_task_timeout_seconds: 30,
      },
      { out },
    );
    const doc = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as unknown;
    expect(checkAgainst("results.schema.json", doc)).toEqual([]);
    return { result, rows: result.results.rows as unknown as HumanEvalRow[] };
  }

  it("gold solves through commands in a bwrap environment: every sample passes", async () => {
    const { result, rows } = await run("gold");
    expect(result.results.status).toBe("ok");
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "passed", interaction: "interactive" });
      for (const s of row.samples) expect(s).toMatchObject({ exit_status: "final", answer_source: "final" });
    }
  }, 180_000);

  it("a reply nested 300,000 deep is the participant's failure (not our sandbox's); the card is fetched once per run", async () => {
    const hostile = await startFakeParticipant({
      answer: () => ({
        kind: "raw",
        body: (id) =>
          `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"kind":"message","messageId":"m","role":"agent",` +
          `"parts":[{"kind":"data","data":{"kind":"final","output":${deepArray(300_000)}}}]}}`,
      }),
    });
    served.push({ close: () => hostile.close() } as ServedApp);
    const { result, rows } = await run(hostile);
    expect(result.results.status).toBe("ok");
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.passed).toBe(false);
      for (const s of row.samples) {
        expect(s).toMatchObject({
          exit_status: "participant_error",
          failure_mode: "model_participant_error",
          episode_error: { code: "E_PARTICIPANT_REPLY_TOO_DEEP" },
        });
      }
    }
    // Two episodes, one card: the run's participant check fetched it, the episodes used its client.
    expect(hostile.hits.filter((h) => h.method === "GET")).toHaveLength(1);
    expect(hostile.hits.filter((h) => h.method === "POST")).toHaveLength(2);
  }, 180_000);

  it("echo answers final at once: a clean run that scores 0", async () => {
    const { result, rows } = await run("echo");
    expect(result.results.status).toBe("ok");
    for (const row of rows) expect(row.passed).toBe(false);
  }, 180_000);
});
