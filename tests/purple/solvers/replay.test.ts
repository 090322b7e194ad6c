/** The replay mode: a recorded trajectory (ours, or the green's own episode trajectory) played back over A2A. */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { createReplaySolver } from "../../../src/purple/solvers/replay.js";
import { createGoldSolver } from "../../../src/purple/solvers/gold.js";
import { parseTrajectory } from "../../../src/purple/solvers/replay-trajectory.js";
import { createSolver } from "../../../src/purple/solvers/index.js";
import { createA2ATurnSender } from "../../../src/interactive/a2a-sender.js";
import { runEpisode } from "../../../src/interactive/episode.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { FakeEnvironment, MemoryTrajectory, outcome } from "../../interactive/fakes.js";
import { BashEnvironment, converse, result, servePurple } from "../interactive/scripted-green.js";

let dir: string;
let served: (ServedApp & { url: string }) | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "replay-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function file(name: string, lines: unknown[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return path;
}

describe("replay mode", () => {
  test("sends each recorded action in order, whatever comes back, then final", async () => {
    const path = await file("simple.jsonl", [
      { action: { kind: "exec_request", command: "ls -la", timeout: 5 } },
      { note: "a line without an action is skipped" },
      { action: { kind: "exec_request", command: "cat README" } },
    ]);
    served = await servePurple(await createReplaySolver({ trajectory: path }));
    const green = await converse(served.url);
    const t = { kind: "task", instruction: "anything" };
    expect((await green.send(t)).action).toEqual({ kind: "exec_request", command: "ls -la", timeout: 5 });
    expect((await green.send(result(2, "", "no such file"))).action).toEqual({
      kind: "exec_request",
      command: "cat README",
    });
    const last = await green.send(result(0));
    expect(last.action).toEqual({ kind: "final" });
    expect(last.metadata).toMatchObject({ replay_step: 2, replay_steps: 2 });
    // Every episode replays from the start; a non-protocol message is an error naming the mode.
    expect((await green.send(t)).action).toMatchObject({ command: "ls -la" });
    const plain = await (await converse(served.url)).send("Complete the function");
    expect(plain.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(plain.text).toContain("replay mode answers only terminal-bench-shell-v1 messages");
  });

  test("the green's own trajectory of a gold episode replays to the same commands, output and files", async () => {
    const p = SAMPLE_PROBLEMS[1]!;
    const facts = { benchmark: "humaneval", instance_id: p.task_id };
    served = await servePurple(createGoldSolver());
    const recorded = new MemoryTrajectory();
    const firstWork = await mkdtemp(join(dir, "first-"));
    const first = await runEpisode({
      instruction: p.prompt,
      facts,
      participant: createA2ATurnSender({ url: served.url }),
      environment: new BashEnvironment(firstWork),
      trajectory: recorded,
    });
    await served.close();
    const path = await file("episode.jsonl", recorded.lines);
    served = await servePurple(await createSolver("replay", { trajectory: path }));
    const againWork = await mkdtemp(join(dir, "again-"));
    const again = await runEpisode({
      instruction: p.prompt,
      facts,
      participant: createA2ATurnSender({ url: served.url }),
      environment: new BashEnvironment(againWork),
    });
    expect(again).toMatchObject({ exit_status: "final", turns: first.turns, commands: first.commands });
    expect(again.final_output).toBe(first.final_output);
    expect(await readFile(join(againWork, "solution.py"), "utf8")).toBe(
      await readFile(join(firstWork, "solution.py"), "utf8"),
    );
  });

  test("a recording without final ends with one; the green's loop sees each command", async () => {
    const path = await file("no-final.jsonl", [{ action: { kind: "exec_request", command: "make test" } }]);
    served = await servePurple(await createReplaySolver({ trajectory: path }));
    const environment = new FakeEnvironment(() => outcome({ exitCode: 1 }));
    const record = await runEpisode({
      instruction: "x",
      participant: createA2ATurnSender({ url: served.url }),
      environment,
    });
    expect(environment.runs.map((r) => r.command)).toEqual(["make test"]);
    expect(record).toMatchObject({ exit_status: "final", turns: 2 });
  });
});

describe("replay trajectory file", () => {
  test("green trajectory lines: exec (its timeout) and final read, invalid replies and other lines skipped", () => {
    const text = [
      { type: "episode_start", protocol: "terminal-bench-shell-v1" },
      { type: "turn", turn: 1, action: { type: "invalid", reason: "not JSON" } },
      { type: "turn", turn: 2, action: { type: "exec", command: "pytest", timeoutS: 60, submitOnSentinel: false } },
      { type: "turn", turn: 3 },
      { type: "turn", turn: 4, action: { type: "final", output: "ok", dialect: "terminal-bench" } },
      { type: "episode_end", record: {} },
    ]
      .map((l) => JSON.stringify(l))
      .join("\n");
    expect(parseTrajectory(text, "t.jsonl")).toEqual([
      { kind: "exec_request", command: "pytest", timeout: 60 },
      { kind: "final", output: "ok" },
    ]);
  });

  test.each([
    ["not JSON", "{", "t.jsonl: line 1 is not JSON"],
    ["not an object", "[1]", "t.jsonl: line 1 is not a JSON object"],
    ["no actions", '{"note":1}', "t.jsonl: no line holds an `action`"],
    [
      "an empty command",
      '{"action":{"kind":"exec_request","command":""}}',
      "line 1: an exec_request needs a non-empty",
    ],
    [
      "a bad timeout",
      '{"action":{"kind":"exec_request","command":"ls","timeout":0}}',
      "line 1: an exec_request's `timeout`",
    ],
    ["an unknown kind", '{"action":{"kind":"task"}}', 'line 1: unknown action kind "task"'],
    [
      "an action after final",
      '{"action":{"kind":"final"}}\n{"action":{"kind":"exec_request","command":"ls"}}',
      "line 2: an action after the final one",
    ],
    [
      "a turn whose action the trajectory's bound cut",
      '{"type":"turn","action":{"type":"exec","command":"ec\\n[...]\\nho"},"elided":[{"field":"action.command","bytes":9,"elided_bytes":3,"sha256":"0"}]}',
      "line 1: the trajectory's size bound cut this turn's action",
    ],
    [
      "a turn reduced to its skeleton",
      '{"type":"turn","action":{"type":"final","output":""},"line_elided":{"bytes":9,"sha256":"0"}}',
      "line 1: the trajectory's size bound cut this turn's action",
    ],
  ])("%s is an error naming the file and line", (_what, text, message) => {
    expect(() => parseTrajectory(text, "t.jsonl")).toThrow(message);
  });

  test("replay mode needs a readable --trajectory", async () => {
    await expect(createReplaySolver({})).rejects.toThrow("replay mode needs --trajectory FILE");
    await expect(createReplaySolver({ trajectory: join(dir, "missing.jsonl") })).rejects.toThrow(
      "cannot read the trajectory",
    );
  });
});
