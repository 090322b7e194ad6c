/**
 * The item view draws the trajectory files interactive episodes really write (src/interactive/trajectory.ts):
 * a real episode (the episode loop with a scripted participant and a scripted environment) writes its file,
 * the viewer's API reads it back as turns.
 */
import { truncateStream } from "../../src/interactive/truncate.js";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runEpisode } from "../../src/interactive/episode.js";
import { trajectoryFile } from "../../src/interactive/trajectory.js";
import { parseJsonl } from "../../src/view/jsonl.js";
import { trajectoryTurns } from "../../src/view/trajectory-turns.js";
import { FakeEnvironment, outcome, ScriptedSender } from "../interactive/fakes.js";
import { jsonTask, textPart, messageReply } from "../interactive/replies.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-view-traj-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("trajectoryTurns", () => {
  test("a real episode's file: each command with its exit code and output, the cut the participant saw, the end", async () => {
    const path = join(dir, "trajectory.jsonl");
    const long = "x".repeat(12_000);
    await runEpisode({
      instruction: "fix the bug",
      participant: new ScriptedSender([
        jsonTask({ kind: "exec_request", command: "ls -la" }),
        jsonTask({ kind: "exec_request", command: "cat big.log" }),
        messageReply([textPart("not json at all {")]),
      ]),
      environment: new FakeEnvironment((command) =>
        command === "ls -la"
          ? outcome({ stdout: "a.py\n<script>x</script>\n", exitCode: 0 })
          : outcome({ stdout: long, stderr: "warn\n", exitCode: 2 }),
      ),
      trajectory: trajectoryFile(path),
    });
    const records = parseJsonl(await readFile(path, "utf8")).records;
    const turns = trajectoryTurns(records) as Array<Record<string, unknown>>;
    expect(turns).toHaveLength(4); // 3 turns + the end
    expect(turns[0]).toMatchObject({ turn: 1, command: "ls -la", exit_code: 0, output: "a.py\n<script>x</script>\n" });
    // The first turn carries the task message sent.
    expect(String(turns[0]!["task_message"])).toContain("fix the bug");
    expect(turns[1]).not.toHaveProperty("task_message");
    // The output as the participant was sent it (the trajectory keeps that, with the whole one's size and hash).
    const sentOutput = truncateStream(long).text;
    expect(turns[1]).toMatchObject({
      turn: 2,
      command: "cat big.log",
      exit_code: 2,
      output: sentOutput,
      stderr: "warn\n",
    });
    expect(turns[1]!["output_truncated"]).toBe(true);
    expect(turns[1]!["elided_chars_sent"]).toBe(2_000);
    expect(turns[2]).toMatchObject({ turn: 3 });
    expect(String(turns[2]!["message"])).toMatch(/^final answer:\nnot json at all \{/);
    expect(turns[3]).toMatchObject({ turn: "end" });
    expect(String(turns[3]!["message"])).toMatch(/^episode ended: final\n3 turns answered, 2 commands/);
  });

  test("a turn's reply is drawn from its bytes as received (wire), an older file's from reply.raw", () => {
    const body = '{"jsonrpc":"2.0","id":1,"result":{"kind":"message","parts":[{"kind":"text","text":"hi"}]}}';
    const turn = (extra: Record<string, unknown>) => ({ type: "turn", turn: 2, action: { type: "final" }, ...extra });
    const [fromWire, binary, older] = trajectoryTurns([
      turn({ wire: { http_status: 200, body, body_encoding: "utf-8" }, reply: { state: "completed" } }),
      turn({ wire: { http_status: 200, body: "3q2+7w==", body_encoding: "base64" } }),
      turn({ reply: { state: "completed", raw: '{"old":true}' } }),
    ]) as Array<Record<string, unknown>>;
    expect(fromWire!["reply_raw"]).toBe(body);
    expect(binary!["reply_raw"]).toBe("(base64) 3q2+7w==");
    expect(older!["reply_raw"]).toBe('{"old":true}');
  });

  test("lines of another shape pass through; episode_start is not a turn", () => {
    const generic = { turn: 1, command: "ls", exit_code: 0, output: "x" };
    expect(trajectoryTurns([{ type: "episode_start", at: "t" }, generic, "junk"])).toEqual([generic, "junk"]);
  });
});
