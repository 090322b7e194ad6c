import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import { commandStatusLine, runEpisode, type CommandEvent } from "../../src/interactive/episode.js";
import { ParticipantError } from "../../src/a2a/client/participant-client.js";
import { EpisodeLimitsError } from "../../src/interactive/limits.js";
import { SUBMIT_SENTINEL } from "../../src/interactive/sentinel.js";
import { turnMessageProblems } from "../../src/interactive/protocol.js";
import { FakeEnvironment, MemoryTrajectory, never, outcome, ScriptedSender } from "./fakes.js";
import { dataPart, jsonTask, messageReply, taskReply, textPart } from "./replies.js";

const exec = (command: string, timeout?: number) =>
  jsonTask({ kind: "exec_request", command, ...(timeout !== undefined ? { timeout } : {}) });
const final = (output: string) => jsonTask({ kind: "final", output });

describe("runEpisode with an in-memory participant and environment", () => {
  test("a full exchange: task → exec_request → exec_result → … → final", async () => {
    const participant = new ScriptedSender([exec("ls"), exec("cat a.txt", 5), final("fixed")]);
    const env = new FakeEnvironment((cmd) =>
      cmd === "ls" ? outcome({ stdout: "a.txt\n" }) : outcome({ exitCode: 1, stderr: "no such file\n" }),
    );
    const events: CommandEvent[] = [];
    const record = await runEpisode({
      instruction: "Fix the bug",
      facts: { benchmark: "swebench", instance_id: "x-1", workdir: "/testbed" },
      participant,
      environment: env,
      onCommand: (e) => events.push(e),
    });
    expect(record).toMatchObject({
      exit_status: "final",
      turns: 3,
      commands: 2,
      final_output: "fixed",
      truncations: 0,
    });
    expect(env.runs).toEqual([
      { command: "ls", timeoutS: 60 },
      { command: "cat a.txt", timeoutS: 5 },
    ]);
    expect(events.map((e) => commandStatusLine(e.command))).toEqual(["$ ls", "$ cat a.txt"]);
    const sent = participant.payloads();
    expect(sent[0]).toMatchObject({
      kind: "task",
      protocol: "terminal-bench-shell-v1",
      instruction: "Fix the bug",
      instance_id: "x-1",
      workdir: "/testbed",
      max_turns: 100,
      command_timeout_default_s: 60,
      command_timeout_max_s: 300,
      episode_time_s: 1800,
    });
    expect(sent[1]).toMatchObject({
      kind: "exec_result",
      exit_code: 0,
      stdout: "a.txt\n",
      stderr: "",
      turn: 2,
      turns_left: 98,
    });
    expect(sent[2]).toMatchObject({ kind: "exec_result", exit_code: 1, stderr: "no such file\n", turn: 3 });
    for (const p of sent) expect(turnMessageProblems(p)).toEqual([]);
    // One TextPart per message; a new task each turn in the participant's context, no taskId.
    expect(participant.received.map((m) => m.parts.length)).toEqual([1, 1, 1]);
    expect(participant.received.map((m) => m.contextId)).toEqual(["", "ctx-1", "ctx-1"]);
    expect(participant.received.map((m) => m.taskId)).toEqual(["", "", ""]);
  });

  test("text that is not JSON ends the episode final with the text", async () => {
    const record = await runEpisode({
      instruction: "x",
      participant: new ScriptedSender([messageReply([textPart("All done, tests pass.")])]),
      environment: new FakeEnvironment(),
    });
    expect(record).toMatchObject({ exit_status: "final", final_output: "All done, tests pass.", commands: 0 });
  });

  test("three invalid replies in a row end the episode format_errors; each gets an error result", async () => {
    const bad = jsonTask({ kind: "nonsense" });
    const participant = new ScriptedSender([bad, bad, bad]);
    const record = await runEpisode({ instruction: "x", participant, environment: new FakeEnvironment() });
    expect(record).toMatchObject({ exit_status: "format_errors", turns: 3, invalid_replies: 3, commands: 0 });
    expect(record.error?.message).toMatch(/3 invalid replies in a row; last: unknown kind "nonsense"/);
    const sent = participant.payloads();
    expect(sent[1]).toMatchObject({ kind: "exec_result", exit_code: -1, error: expect.stringMatching(/unknown kind/) });
    expect(sent[2]!["stderr"]).toMatch(/2 in a row/);
  });

  test("a valid reply resets the count of invalid ones", async () => {
    const bad = jsonTask({ kind: "nonsense" });
    const participant = new ScriptedSender([bad, bad, exec("ls"), bad, bad, final("ok")]);
    const record = await runEpisode({ instruction: "x", participant, environment: new FakeEnvironment() });
    expect(record).toMatchObject({ exit_status: "final", invalid_replies: 4, turns: 6, commands: 1 });
  });

  test("the turn limit: the last turn's command runs, then the episode ends turn_limit", async () => {
    const participant = new ScriptedSender([exec("a"), exec("b"), exec("c")]);
    const env = new FakeEnvironment();
    const record = await runEpisode({ instruction: "x", limits: { maxTurns: 2 }, participant, environment: env });
    expect(record).toMatchObject({ exit_status: "turn_limit", turns: 2, commands: 2 });
    expect(env.runs.map((r) => r.command)).toEqual(["a", "b"]);
    expect(participant.received).toHaveLength(2);
    expect(participant.payloads()[1]).toMatchObject({ turn: 2, turns_left: 0 });
  });

  test("a participant that never answers times out per turn: participant_error, promptly", async () => {
    const t0 = Date.now();
    const record = await runEpisode({
      instruction: "x",
      limits: { turnTimeoutS: 1, episodeTimeS: 60 },
      participant: new ScriptedSender([exec("ls"), never]),
      environment: new FakeEnvironment(),
    });
    expect(record).toMatchObject({ exit_status: "participant_error", turns: 1, commands: 1 });
    expect(record.error?.code).toBe("E_PARTICIPANT_TIMEOUT");
    // Well inside the episode's 60 s: the turn timeout ended it (a busy machine may add seconds).
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(record.participant_seconds).toBeGreaterThanOrEqual(0.9);
  });

  test("when the episode's time runs out first, it ends time_limit", async () => {
    const record = await runEpisode({
      instruction: "x",
      limits: { turnTimeoutS: 300, episodeTimeS: 1 },
      participant: new ScriptedSender([never]),
      environment: new FakeEnvironment(),
    });
    expect(record.exit_status).toBe("time_limit");
    // Far below the 300 s turn timeout: the episode's own limit ended it.
    expect(record.wall_seconds).toBeLessThan(60);
  });

  test("a command's timeout is clamped to the time left in the episode", async () => {
    const env = new FakeEnvironment();
    await runEpisode({
      instruction: "x",
      limits: { episodeTimeS: 5 },
      participant: new ScriptedSender([exec("sleep 100", 300), final("")]),
      environment: env,
    });
    expect(env.runs[0]!.timeoutS).toBeLessThanOrEqual(5);
    expect(env.runs[0]!.timeoutS).toBeGreaterThanOrEqual(4);
  });

  test("a command stopped at its timeout is reported with exit code 124 and its partial output", async () => {
    const participant = new ScriptedSender([exec("sleep 9", 1), final("")]);
    const env = new FakeEnvironment(() => outcome({ exitCode: null, timedOut: true, stdout: "partial" }));
    await runEpisode({ instruction: "x", participant, environment: env });
    expect(participant.payloads()[1]).toMatchObject({ exit_code: 124, timed_out: true, stdout: "partial" });
  });

  test("long output is cut before it is sent; the trajectory keeps what was sent, the whole one's bytes and sha256", async () => {
    const big = "y".repeat(25_000);
    const participant = new ScriptedSender([exec("yes | head"), final("")]);
    const trajectory = new MemoryTrajectory();
    const record = await runEpisode({
      instruction: "x",
      participant,
      environment: new FakeEnvironment(() => outcome({ stdout: big, stderr: "e".repeat(10_001) })),
      trajectory,
    });
    expect(record.truncations).toBe(2);
    const sent = participant.payloads()[1]!;
    expect(sent).toMatchObject({ stdout_elided_chars: 15_000, stderr_elided_chars: 1 });
    expect((sent["stdout"] as string).length).toBeLessThan(10_300);
    const turn1 = trajectory.lines.find((l) => l.type === "turn" && l.turn === 1);
    expect(turn1?.type === "turn" && turn1.command?.stdout).toEqual({
      text: sent["stdout"],
      elided_chars: 15_000,
      bytes: 25_000,
      sha256: createHash("sha256").update(big).digest("hex"),
    });
    expect(turn1?.type === "turn" && turn1.command?.stderr).toMatchObject({ elided_chars: 1, bytes: 10_001 });
    expect(turn1?.type === "turn" && turn1.result_sent).toMatchObject({ stdout_elided_chars: 15_000 });
  });

  test("mini-swe-agent's sentinel command ends the episode final with the rest of its output", async () => {
    const command = `echo ${SUBMIT_SENTINEL} && git diff`;
    const participant = new ScriptedSender([exec(command)]);
    const env = new FakeEnvironment(() => outcome({ stdout: `${SUBMIT_SENTINEL}\ndiff --git a/x b/x\n` }));
    const record = await runEpisode({ instruction: "x", participant, environment: env });
    expect(record).toMatchObject({ exit_status: "final", final_output: "diff --git a/x b/x\n", commands: 1 });
  });

  test("a sentinel command that fails is sent back like any other", async () => {
    const command = `echo ${SUBMIT_SENTINEL} && git diff`;
    const participant = new ScriptedSender([exec(command), final("gave up")]);
    const env = new FakeEnvironment(() =>
      outcome({ exitCode: 128, stdout: `${SUBMIT_SENTINEL}\n`, stderr: "not a git repo" }),
    );
    const record = await runEpisode({ instruction: "x", participant, environment: env });
    expect(record).toMatchObject({ exit_status: "final", final_output: "gave up" });
    expect(participant.payloads()[1]).toMatchObject({ exit_code: 128 });
  });

  test("output that starts with the sentinel does not submit unless the command echoed it first", async () => {
    const participant = new ScriptedSender([exec("cat notes"), final("done")]);
    const env = new FakeEnvironment(() => outcome({ stdout: `${SUBMIT_SENTINEL}\nsecret` }));
    const record = await runEpisode({ instruction: "x", participant, environment: env });
    expect(record.final_output).toBe("done");
  });

  test.each([
    [TaskState.TASK_STATE_FAILED, "E_PARTICIPANT_TASK_FAILED"],
    [TaskState.TASK_STATE_REJECTED, "E_PARTICIPANT_TASK_REJECTED"],
    [TaskState.TASK_STATE_CANCELED, "E_PARTICIPANT_TASK_CANCELED"],
    [TaskState.TASK_STATE_AUTH_REQUIRED, "E_PARTICIPANT_TASK_STATE"],
    [TaskState.TASK_STATE_WORKING, "E_PARTICIPANT_TASK_STATE"],
  ])("a task ending in state %i is the participant's failure (%s)", async (state, code) => {
    const reply = taskReply({ state, status: [textPart("model quota exceeded")] });
    const record = await runEpisode({
      instruction: "x",
      participant: new ScriptedSender([reply]),
      environment: new FakeEnvironment(),
    });
    expect(record.exit_status).toBe("participant_error");
    expect(record.error?.code).toBe(code);
  });

  test("a participant's transport error ends the episode with its code", async () => {
    const participant = new ScriptedSender([
      () =>
        Promise.reject(new ParticipantError("E_PARTICIPANT_REPLY_TOO_LARGE", "participant reply exceeded 1024 bytes")),
    ]);
    const record = await runEpisode({ instruction: "x", participant, environment: new FakeEnvironment() });
    expect(record).toMatchObject({
      exit_status: "participant_error",
      error: { code: "E_PARTICIPANT_REPLY_TOO_LARGE" },
    });
  });

  test("a reply too deep to read (300,000 levels, from a sender without a depth limit) is the participant's failure", async () => {
    // Built as objects (no JSON text): only the episode's own reading of the reply meets the depth.
    let deep: unknown = [];
    for (let i = 0; i < 300_000; i++) deep = [deep];
    const trajectory = new MemoryTrajectory();
    const record = await runEpisode({
      instruction: "x",
      participant: new ScriptedSender([messageReply([dataPart({ kind: "final", output: deep })])]),
      environment: new FakeEnvironment(),
      trajectory,
    });
    expect(record).toMatchObject({ exit_status: "participant_error", error: { code: "E_PARTICIPANT_REPLY_TOO_DEEP" } });
    expect(trajectory.lines.map((l) => l.type)).toEqual(["episode_start", "turn", "episode_end"]);
  });

  test("input-required: the next message continues that task (its taskId, same context)", async () => {
    const paused = taskReply({
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      id: "task-7",
      contextId: "ctx-7",
      status: [textPart(JSON.stringify({ kind: "exec_request", command: "ls" }))],
    });
    const participant = new ScriptedSender([paused, exec("pwd", 3), final("ok")]);
    const record = await runEpisode({ instruction: "x", participant, environment: new FakeEnvironment() });
    expect(record.exit_status).toBe("final");
    expect(participant.received.map((m) => [m.contextId, m.taskId])).toEqual([
      ["", ""],
      ["ctx-7", "task-7"],
      ["ctx-7", ""],
    ]);
  });

  test("input-required with plain text is not taken as final", async () => {
    const paused = taskReply({ state: TaskState.TASK_STATE_INPUT_REQUIRED, status: [textPart("Which file?")] });
    const participant = new ScriptedSender([paused, final("ok")]);
    const record = await runEpisode({ instruction: "x", participant, environment: new FakeEnvironment() });
    expect(record).toMatchObject({ exit_status: "final", final_output: "ok", invalid_replies: 1 });
  });

  test("an environment failure ends the episode environment_error", async () => {
    const env = new FakeEnvironment(() => outcome({ exitCode: null, infraError: "engine stopped answering" }));
    const record = await runEpisode({
      instruction: "x",
      participant: new ScriptedSender([exec("ls")]),
      environment: env,
    });
    expect(record).toMatchObject({
      exit_status: "environment_error",
      error: { code: "E_ENVIRONMENT", message: "engine stopped answering" },
    });
  });

  test("a limit the participant broke (its disk) ends the episode resource_limit, the trajectory says so", async () => {
    const trajectory = new MemoryTrajectory();
    const env = new FakeEnvironment(() => outcome({ exitCode: null, limitExceeded: "disk limit: past 64 MiB" }));
    const participant = new ScriptedSender([exec("yes > f"), exec("ls")]);
    const record = await runEpisode({ instruction: "x", participant, environment: env, trajectory });
    expect(record).toMatchObject({
      exit_status: "resource_limit",
      commands: 1,
      error: { code: "E_RESOURCE_LIMIT", message: "disk limit: past 64 MiB" },
    });
    expect(env.runs).toHaveLength(1);
    expect(JSON.stringify(trajectory.lines)).toContain('"limit_exceeded":"disk limit: past 64 MiB"');
  });

  test("a limit found after the last command overrides the participant's ending; none leaves it as it was", async () => {
    const broken = Object.assign(new FakeEnvironment(), { limitProblem: () => Promise.resolve("disk limit: late") });
    const record = await runEpisode({
      instruction: "x",
      participant: new ScriptedSender([exec("fallocate -l 9G f"), final("done")]),
      environment: broken,
    });
    expect(record).toMatchObject({ exit_status: "resource_limit", error: { message: "disk limit: late" } });
    const fine = Object.assign(new FakeEnvironment(), { limitProblem: () => Promise.resolve(null) });
    const ok = await runEpisode({
      instruction: "x",
      participant: new ScriptedSender([final("done")]),
      environment: fine,
    });
    expect(ok).toMatchObject({ exit_status: "final" });
    const rejecting = Object.assign(new FakeEnvironment(), { limitProblem: () => Promise.reject(new Error("x")) });
    const still = await runEpisode({
      instruction: "x",
      participant: new ScriptedSender([final("done")]),
      environment: rejecting,
    });
    expect(still).toMatchObject({ exit_status: "final" });
  });

  test("an environment that rejects (against its contract) is an environment error too", async () => {
    const env = new FakeEnvironment(() => Promise.reject(new Error("boom")));
    const record = await runEpisode({
      instruction: "x",
      participant: new ScriptedSender([exec("ls")]),
      environment: env,
    });
    expect(record).toMatchObject({ exit_status: "environment_error", error: { message: "boom" } });
  });

  test("cancel during a command ends the episode canceled, promptly", async () => {
    const controller = new AbortController();
    const env = new FakeEnvironment(() => {
      setTimeout(() => controller.abort(), 50);
      return new Promise(() => {}); // ignores its signal: the episode must not wait
    });
    const t0 = Date.now();
    const record = await runEpisode({
      instruction: "x",
      participant: new ScriptedSender([exec("sleep 100")]),
      environment: env,
      signal: controller.signal,
    });
    expect(record.exit_status).toBe("canceled");
    // The environment never answers: ending at all is the proof; the bound is for a slow machine.
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  test("cancel while waiting for the participant ends the episode canceled, not its failure", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const record = await runEpisode({
      instruction: "x",
      participant: new ScriptedSender([never]),
      environment: new FakeEnvironment(),
      signal: controller.signal,
    });
    expect(record.exit_status).toBe("canceled");
    expect(record.error).toBeUndefined();
  });

  test("self-reported usage is summed over turns and marked as such", async () => {
    const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
    const participant = new ScriptedSender([
      jsonTask({ kind: "exec_request", command: "ls" }, { artifactMetadata: { usage } }),
      jsonTask({ kind: "final" }, { artifactMetadata: { usage } }),
    ]);
    const record = await runEpisode({ instruction: "x", participant, environment: new FakeEnvironment() });
    expect(record.usage).toEqual({
      prompt_tokens: 200,
      completion_tokens: 20,
      total_tokens: 220,
      requests: 2,
      self_reported: true,
    });
  });

  test("the trajectory has a start line, a line per turn with ids and actions, and an end line", async () => {
    const trajectory = new MemoryTrajectory();
    const participant = new ScriptedSender([exec("ls"), final("ok")]);
    const record = await runEpisode({ instruction: "x", participant, environment: new FakeEnvironment(), trajectory });
    expect(trajectory.lines.map((l) => l.type)).toEqual(["episode_start", "turn", "turn", "episode_end"]);
    const [, t1, t2, end] = trajectory.lines;
    expect(t1).toMatchObject({
      turn: 1,
      sent: { context_id: "", task_id: "", message_id: participant.received[0]!.messageId },
      reply: { state: "completed", context_id: "ctx-1" },
      action: { type: "exec", command: "ls" },
      command: { exit_code: 0 },
      result_sent: { kind: "exec_result", turn: 2 },
    });
    expect(t1?.type === "turn" && JSON.parse(t1.sent.text)).toMatchObject({ kind: "task" });
    expect(t2).toMatchObject({ turn: 2, sent: { context_id: "ctx-1" }, action: { type: "final", output: "ok" } });
    expect(end).toMatchObject({ type: "episode_end", record });
  });

  test("out-of-bounds limits are refused before anything is sent", async () => {
    const participant = new ScriptedSender([]);
    await expect(
      runEpisode({ instruction: "x", limits: { maxTurns: 251 }, participant, environment: new FakeEnvironment() }),
    ).rejects.toThrow(EpisodeLimitsError);
    expect(participant.received).toHaveLength(0);
  });
});

describe("commandStatusLine", () => {
  test("one line, clipped", () => {
    expect(commandStatusLine("cd x\n  make")).toBe("$ cd x ⏎ make");
    expect(commandStatusLine("a".repeat(300))).toHaveLength(2 + 200 + 1);
  });
});
