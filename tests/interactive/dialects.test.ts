/**
 * Other teams' purples as they are on the wire: each fixture (tests/fixtures/dialects) is a whole
 * JSON-RPC response, served by a participant on loopback and read through the real path (the SDK
 * client, reply-content.ts, decode.ts); then one episode per dialect, to its end, and the change
 * its final carries (the SWE-bench episode's rule, submittedChange).
 */
import { afterEach, describe, expect, test } from "vitest";
import { createA2ATurnSender } from "../../src/interactive/a2a-sender.js";
import { replyContent } from "../../src/interactive/reply-content.js";
import { decodeReply, type Action } from "../../src/interactive/decode.js";
import { runEpisode } from "../../src/interactive/episode.js";
import { userMessage, textPart } from "../../src/a2a/shared/parts.js";
import { submittedChange } from "../../src/benchmarks/swebench/episode.js";
import { SUBMIT_SENTINEL } from "../../src/interactive/sentinel.js";
import type { FakeParticipant } from "../a2a/fake-participant.js";
import {
  agentSwe,
  carBenchCall,
  fixture,
  miniSweCall,
  serveReplies,
  tau2Call,
  terminalBench,
} from "./dialect-fixtures.js";
import { FakeEnvironment, outcome } from "./fakes.js";

const DIFF =
  "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n";

let participants: FakeParticipant[] = [];
afterEach(async () => {
  await Promise.all(participants.map((p) => p.close()));
  participants = [];
});

async function serve(...replies: ReturnType<typeof fixture>[]): Promise<FakeParticipant> {
  const p = await serveReplies(replies);
  participants.push(p);
  return p;
}

/** One turn through the real path: the SDK client's send, the reply's content, the decoder. */
async function decodeFixture(name: string): Promise<Action> {
  const p = await serve(fixture(name));
  const sender = createA2ATurnSender({ url: p.url });
  const result = await sender.send(
    userMessage([textPart('{"kind":"task","instruction":"x"}')]),
    new AbortController().signal,
  );
  return decodeReply(replyContent(result));
}

describe("each purple's reply, as it is on the wire, decodes to its action", () => {
  test.each([
    ["agentswe-bash", { type: "exec", command: 'grep -n "return 1" f.py', dialect: "agentswe" }],
    ["agentswe-debug", { type: "exec", command: expect.stringMatching(/^sed -i/), dialect: "agentswe" }],
    ["agentswe-patch", { type: "final", output: DIFF, dialect: "agentswe", patch: true }],
    ["carbench-tool-call", { type: "exec", command: 'grep -n "return 1" f.py', dialect: "tool-call" }],
    ["carbench-speech", { type: "final", output: "I changed f to return 2; the task is done.", dialect: "text" }],
    ["tau2-tool-call", { type: "exec", command: 'grep -n "return 1" f.py', dialect: "tool-call" }],
    ["tau2-respond", { type: "final", output: "I changed f to return 2.", dialect: "tool-call" }],
    ["tau2-respond-tagged", { type: "final", output: "I encountered an error processing your request." }],
    ["terminal-bench-exec", { type: "exec", command: 'grep -n "return 1" f.py', timeoutS: 30 }],
    ["terminal-bench-final", { type: "final", output: "Changed f to return 2.", dialect: "terminal-bench" }],
    ["rdi-dummy-final", { type: "final", output: "Dummy purple does not execute commands." }],
    [
      "mini-swe-agent-submit",
      { type: "exec", command: `echo ${SUBMIT_SENTINEL} && cat patch.txt`, submitOnSentinel: true },
    ],
  ])("%s", async (name, expected) => {
    expect(await decodeFixture(name)).toMatchObject(expected);
  });

  test("an AgentSWE artifact's name decides, not the text: a diff named bash runs, a command named patch submits", async () => {
    expect(await decodeWith(agentSwe("bash", "cat f.py"))).toMatchObject({ type: "exec", command: "cat f.py" });
    expect(await decodeWith(agentSwe("patch", "not a diff"))).toMatchObject({ type: "final", patch: true });
  });

  test("an AgentSWE artifact named `error` (its model failed) is no action: an invalid turn, not a final", async () => {
    const body = agentSwe("bash", "LLM error: rate limited");
    (body.result["artifacts"] as { name: string }[])[0]!.name = "error";
    expect(await decodeWith(body)).toMatchObject({
      type: "invalid",
      reason: "the participant reported an error: LLM error: rate limited",
    });
  });

  test("an artifact named otherwise (Terminal-Bench's `Result`, ours `response`) is read by its content only", async () => {
    const body = agentSwe("bash", '{"kind":"final","output":"done"}');
    (body.result["artifacts"] as { name: string }[])[0]!.name = "Result";
    expect(await decodeWith(body)).toMatchObject({ type: "final", output: "done", dialect: "terminal-bench" });
  });

  test("a CAR-bench DataPart with two different calls is one action too many", async () => {
    const body = carBenchCall("ls");
    const data = (body.result["parts"] as { data?: { tool_calls: unknown[] } }[])[1]!.data!;
    data.tool_calls.push({ tool_name: "bash", arguments: { command: "pwd" } });
    expect(await decodeWith(body)).toMatchObject({ type: "invalid", reason: expect.stringMatching(/one action/) });
  });
});

async function decodeWith(body: ReturnType<typeof fixture>): Promise<Action> {
  const p = await serve(body);
  const result = await createA2ATurnSender({ url: p.url }).send(
    userMessage([textPart("{}")]),
    new AbortController().signal,
  );
  return decodeReply(replyContent(result));
}

/** An episode against the served replies, in an environment answering `answer`. */
async function episode(
  replies: ReturnType<typeof fixture>[],
  answer?: ConstructorParameters<typeof FakeEnvironment>[0],
) {
  const p = await serve(...replies);
  const environment = new FakeEnvironment(answer);
  const record = await runEpisode({
    instruction: "Make f return 2.",
    participant: createA2ATurnSender({ url: p.url }),
    environment,
    limits: { maxTurns: 10 },
  });
  return { record, commands: environment.runs.map((r) => r.command) };
}

describe("one episode per dialect, to its end", () => {
  test("AgentSWE: bash and debug run, patch ends it; the diff is the change even over a touched tree", async () => {
    const { record, commands } = await episode([
      agentSwe("bash", "cat f.py"),
      agentSwe("debug", "sed -i s/1/2/ f.py"),
      agentSwe("patch", DIFF),
    ]);
    expect(commands).toEqual(["cat f.py", "sed -i s/1/2/ f.py"]);
    expect(record).toMatchObject({ exit_status: "final", final_output: DIFF, final_patch: true, commands: 2 });
    expect(submittedChange(record, "")).toEqual({ patch: DIFF, source: "final_output" });
    expect(submittedChange(record, "diff --git a/g.py b/g.py\n")).toEqual({ patch: DIFF, source: "final_output" });
  });

  test("AgentSWE: a patch that is no diff submits nothing: the environment's (empty) change stands", async () => {
    const { record } = await episode([agentSwe("patch", "I could not fix it")]);
    expect(submittedChange(record, "")).toEqual({ patch: "", source: "environment" });
  });

  test("Terminal-Bench: exec then final; a final carrying a diff over an untouched tree is the change", async () => {
    const { record, commands } = await episode([
      terminalBench({ kind: "exec_request", command: "cat f.py", timeout: 30 }),
      terminalBench({ kind: "final", output: "Here is my fix:\n\n```diff\n" + DIFF + "```\n" }),
    ]);
    expect(commands).toEqual(["cat f.py"]);
    expect(record).toMatchObject({ exit_status: "final" });
    expect(record.final_patch).toBeUndefined();
    expect(submittedChange(record, "")).toEqual({ patch: DIFF, source: "final_output" });
    // The tree holds a change: that is what the agent did, its final's diff does not replace it.
    expect(submittedChange(record, "diff --git a/g.py b/g.py\n")).toMatchObject({ source: "environment" });
  });

  test("RDI's dummy: final at once, nothing to grade", async () => {
    const { record, commands } = await episode([fixture("rdi-dummy-final")]);
    expect(commands).toEqual([]);
    expect(record).toMatchObject({ exit_status: "final", turns: 1 });
    expect(submittedChange(record, "")).toEqual({ patch: "", source: "environment" });
  });

  test("CAR-bench: its tool_name calls run; its speech ends the episode", async () => {
    const { record, commands } = await episode([carBenchCall("cat f.py"), fixture("carbench-speech")]);
    expect(commands).toEqual(["cat f.py"]);
    expect(record).toMatchObject({ exit_status: "final", invalid_replies: 0 });
  });

  test("tau2: its calls run; `respond` ends the episode with its content", async () => {
    const { record, commands } = await episode([tau2Call("cat f.py"), fixture("tau2-respond")]);
    expect(commands).toEqual(["cat f.py"]);
    expect(record).toMatchObject({
      exit_status: "final",
      final_output: "I changed f to return 2.",
      invalid_replies: 0,
    });
  });

  test("mini-swe-agent: the sentinel command submits the rest of its output, as the change", async () => {
    const { record, commands } = await episode(
      [miniSweCall("git diff > patch.txt"), miniSweCall(`echo ${SUBMIT_SENTINEL} && cat patch.txt`)],
      (command) => outcome(command.startsWith("echo") ? { stdout: `${SUBMIT_SENTINEL}\n${DIFF}` } : {}),
    );
    expect(commands).toHaveLength(2);
    expect(record).toMatchObject({ exit_status: "final", final_output: DIFF, final_patch: true });
    // patch.txt sits in the tree; the submission is the change.
    expect(submittedChange(record, "diff --git a/patch.txt b/patch.txt\n")).toEqual({
      patch: DIFF,
      source: "final_output",
    });
  });
});
