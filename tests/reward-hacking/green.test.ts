/**
 * The participant contract, attacked end to end through the built CLI (`run
 * humaneval`, real local sandbox) and the green agent with its real runner:
 *
 * 1. a request naming a participant that is never asked (it brings a gold
 *    `predictions` file) is rejected, naming both fields;
 * 2. a participant card whose `url` points at another loopback service (an
 *    SSRF attempt) routes nothing there: every question goes to the
 *    participant URL as given, path prefix included;
 * 3. a participant that answers garbage (malformed JSON-RPC, JSON-RPC errors,
 *    HTTP 500, resets) on a third of the items does not get "no score": the
 *    run ends `ok`, those items fail, and participant_errors counts them;
 * 4. a participant answering 50 MB per item fails those items with
 *    "participant reply exceeded N bytes" while the runner's memory stays
 *    bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { partData, partText } from "../../src/a2a/shared/parts.js";
import { DEFAULT_MAX_REPLY_BYTES } from "../../src/a2a/client/reply-limit.js";
import { SAMPLE_PROBLEMS } from "../../src/benchmarks/humaneval/sample-dataset.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { builtinRunnerCommand } from "../../src/green/runner-command.js";
import { cliEntry } from "../../src/util/package-root.js";
import { startFakeParticipant, startRecorder, type Answer, type FakeParticipant } from "../a2a/fake-participant.js";
import { requestOf, startGreen, type StartedGreen } from "../green/helpers.js";
import { describeRow, packageTempDir, readRows, runCli } from "./helpers.js";

const MB = 1024 * 1024;
/** The limit of one test: a few CLI runs of the 12 sample problems on a loaded 2-core machine. */
const TEST_LIMIT_MS = 170_000;

let root: string;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
let green: StartedGreen;
const fakes: FakeParticipant[] = [];

beforeAll(async () => {
  if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
  root = await packageTempDir("rh-green-");
  recorder = await startRecorder();
  green = await startGreen(builtinRunnerCommand(), { allowedRoots: [root] });
});
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  await recorder?.close();
  await green?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

/** The sample problem a question is about (its prompt is in the question). */
function problemOf(text: string): { index: number; completion: string } {
  const index = SAMPLE_PROBLEMS.findIndex((p) => text.includes(`def ${p.entry_point}(`));
  const p = SAMPLE_PROBLEMS[index];
  if (!p) throw new Error(`no sample problem in the question: ${text.slice(0, 200)}`);
  return { index, completion: "```python\n" + p.prompt + p.canonical_solution + "```" };
}

/** A participant at `/agents/x/` whose card sends everything to the recorder; `bad(i)` says how problem i is answered. */
async function participant(bad: (index: number) => Answer | null, cardShape: "legacy" | "v1" = "legacy") {
  const f = await startFakeParticipant({
    prefix: "/agents/x/",
    cardShape,
    cardUrl: () => recorder.url,
    answer: (_n, text) => {
      const { index, completion } = problemOf(text);
      return bad(index) ?? { kind: "text", text: completion };
    },
  });
  fakes.push(f);
  return f;
}

const posts = (f: FakeParticipant) => f.hits.filter((h) => h.method === "POST");

describe("1. a request that names a participant cannot bring predictions", () => {
  it("the green agent rejects it, naming participants and config.predictions; nothing runs", async () => {
    const gold = join(root, "gold.jsonl");
    const lines = SAMPLE_PROBLEMS.map((p) => JSON.stringify({ task_id: p.task_id, completion: p.canonical_solution }));
    await writeFile(gold, lines.join("\n") + "\n");
    const client = await createA2AClient(green.url);
    const task = (await client.sendMessage(
      requestOf({
        participants: { agent: "http://127.0.0.1:9/" },
        config: { benchmark: "humaneval", predictions: gold, run_id: "rh-green-preds" },
      }),
    )) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    const text = partText(task.status!.message!.parts[0]!) ?? "";
    expect(text).toMatch(/participants and config\.predictions cannot be given together/);
    expect(existsSync(join(green.resultsRoot, "a2a", "rh-green-preds", "results.json"))).toBe(false);
  });

  it("the CLI refuses --agent with --predictions (usage error, exit 2, no results)", async () => {
    const out = join(root, "cli-preds");
    const gold = join(root, "gold.jsonl");
    const r = await runCli(["humaneval", "--agent", "http://127.0.0.1:9/", "--predictions", gold, "--out", out]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--agent and --predictions cannot be given together/);
    expect(existsSync(join(out, "results.json"))).toBe(false);
  });
});

describe("2. the card's url never routes a question", () => {
  it(
    "CLI run: zero requests reach the card's url; the prefixed participant URL gets every question",
    async () => {
      const f = await participant(() => null);
      const before = recorder.hits.length;
      const out = join(root, "ssrf-cli");
      const r = await runCli(["humaneval", "--agent", f.url, "--samples", "3", "--out", out]);
      expect(r.code, r.stderr).toBe(0);
      expect(recorder.hits.length - before).toBe(0);
      expect(posts(f)).toHaveLength(3);
      expect(new Set(posts(f).map((h) => h.path))).toEqual(new Set(["/agents/x/"]));
      const { status, results } = await readRows(out);
      expect(status).toBe("ok");
      expect(results["aggregate"]).toMatchObject({ accuracy: 1, participant_errors: 0 });
    },
    TEST_LIMIT_MS,
  );

  it(
    "through the green agent (1.0 card): the run completes, the card's url got nothing",
    async () => {
      const f = await participant(() => null, "v1");
      const before = recorder.hits.length;
      const client = await createA2AClient(green.url);
      const task = (await client.sendMessage(
        requestOf({
          participants: { agent: f.url },
          config: { benchmark: "humaneval", samples: 2, run_id: "rh-ssrf" },
        }),
      )) as Task;
      expect(task.status?.state, JSON.stringify(task.status)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(recorder.hits.length - before).toBe(0);
      expect(posts(f).map((h) => h.path)).toEqual(["/agents/x/", "/agents/x/"]);
    },
    TEST_LIMIT_MS,
  );
});

describe("3. a participant's bad replies after its card was fetched are its failures, scored", () => {
  const BAD: Answer[] = [{ kind: "malformed" }, { kind: "rpc_error" }, { kind: "http_500" }, { kind: "reset" }];

  it(
    "4 of 12 items answered with garbage: status ok, accuracy 8/12, participant_errors 4 in results and bundle",
    async () => {
      const f = await participant((i) => BAD[i] ?? null);
      const client = await createA2AClient(green.url);
      const task = (await client.sendMessage(
        requestOf({ participants: { agent: f.url }, config: { benchmark: "humaneval", run_id: "rh-garbage" } }),
      )) as Task;
      expect(task.status?.state, JSON.stringify(task.status)).toBe(TaskState.TASK_STATE_COMPLETED);
      const bundle = partData(task.artifacts.find((a) => a.name === "evaluation_bundle")!.parts[0]!)!;
      expect(validateBundle(bundle)).toEqual([]);
      expect(bundle["status"]).toBe("ok");
      expect(bundle["metrics"]).toMatchObject({
        accuracy: 8 / 12,
        participant_errors: 4,
        failure_modes: { model_participant_error: 4 },
      });
      const resultsPath = (bundle["artifacts"] as Record<string, string>)["results_path"]!;
      const results = JSON.parse(readFileSync(resultsPath, "utf8")) as {
        status: string;
        infrastructure_failures: number;
        rows: Array<Record<string, unknown>>;
      };
      expect(results.status).toBe("ok");
      expect(results.infrastructure_failures).toBe(0);
      const failed = results.rows.filter((r) => r["failure_mode"] === "model_participant_error");
      expect(failed.map((r) => r["task_id"]).sort()).toEqual(SAMPLE_PROBLEMS.slice(0, 4).map((p) => p.task_id));
      for (const r of failed) expect(r["error"], JSON.stringify(r)).toMatch(/^participant .* failed after 3 attempts/);
    },
    TEST_LIMIT_MS,
  );
});

describe("4. a participant's reply is bounded", () => {
  it(
    "50 MB answers fail their items as the participant's, named; the runner's peak RSS stays small",
    async () => {
      const f = await participant((i) => (i < 2 ? { kind: "flood", bytes: 50 * MB } : null));
      const out = join(root, "flood");
      let peakKb = 0;
      let sampler: NodeJS.Timeout | undefined;
      const r = await runCli(["humaneval", "--agent", f.url, "--samples", "12", "--out", out], {}, (pid) => {
        sampler = setInterval(() => {
          try {
            const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
            if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
          } catch {
            // exited
          }
        }, 20);
      });
      clearInterval(sampler);
      expect(r.code, r.stderr).toBe(0);
      const { status, rows, results } = await readRows(out);
      expect(status).toBe("ok");
      const flooded = [...rows.values()].filter((row) => row["failure_mode"] === "model_participant_error");
      expect(flooded).toHaveLength(2);
      for (const row of flooded)
        expect(row["error"], describeRow(row)).toBe(`participant reply exceeded ${DEFAULT_MAX_REPLY_BYTES} bytes`);
      expect(results["aggregate"]).toMatchObject({ accuracy: 10 / 12, participant_errors: 2 });
      // Each flood was asked once (not retried) and cut off near the cap, not read to its 50 MB.
      expect(posts(f)).toHaveLength(12);
      expect(f.floodBytesWritten).toBeLessThan(2 * (DEFAULT_MAX_REPLY_BYTES + 16 * MB));
      expect(peakKb, "runner peak RSS (kB)").toBeGreaterThan(0);
      expect(peakKb, "runner peak RSS (kB)").toBeLessThan(400 * 1024);
    },
    TEST_LIMIT_MS,
  );
});
