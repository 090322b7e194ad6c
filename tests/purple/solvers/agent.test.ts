/**
 * The agent mode through the real purple A2A app on loopback, against a local
 * stand-in chat-completions server that scripts tool calls (never the internet).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import { createAgentSolver } from "../../../src/purple/solvers/agent.js";
import { AGENT_SYSTEM_PROMPT } from "../../../src/purple/solvers/agent-prompts.js";
import type { SolverOptions } from "../../../src/purple/solvers/index.js";
import { createA2ATurnSender } from "../../../src/interactive/a2a-sender.js";
import { runEpisode } from "../../../src/interactive/episode.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { FakeEnvironment, outcome } from "../../interactive/fakes.js";
import {
  call,
  completion,
  reply,
  startStandIn,
  status,
  toolCalls,
  type StandIn,
} from "../../support/openai-stand-in.js";
import { converse, result, servePurple } from "../interactive/scripted-green.js";

let api: StandIn;
let served: (ServedApp & { url: string }) | undefined;
beforeAll(async () => {
  api = await startStandIn();
});
afterAll(async () => {
  await api.close();
});
beforeEach(() => api.reset());
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const options = (agent: SolverOptions["agent"] = {}): SolverOptions => ({
  model: "m-1",
  env: { OPENAI_BASE_URL: api.baseUrl, OPENAI_API_KEY: "sk-test" },
  openai: { maxRetries: 0 },
  agent,
});
const task = { kind: "task", protocol: "terminal-bench-shell-v1", instruction: "Fix the build" };
const bash = (command: string, extra: Record<string, unknown> = {}) => toolCalls([call("bash", { command, ...extra })]);

describe("agent mode", () => {
  test("under the green's loop: tool calls become commands, results go back as tool messages, submit ends it", async () => {
    api.script = [bash("ls"), bash("cat f", { timeout: 5 }), toolCalls([call("submit", { output: "done" })])];
    served = await servePurple(createAgentSolver(options()));
    const environment = new FakeEnvironment((command) =>
      command === "ls" ? outcome({ stdout: "f\n" }) : outcome({ exitCode: 1, stderr: "nope" }),
    );
    const record = await runEpisode({
      instruction: "Fix the build",
      facts: { workdir: "/testbed" },
      participant: createA2ATurnSender({ url: served.url }),
      environment,
    });
    expect(environment.runs).toEqual([
      { command: "ls", timeoutS: 60 },
      { command: "cat f", timeoutS: 5 },
    ]);
    expect(record).toMatchObject({ exit_status: "final", final_output: "done", turns: 3, commands: 2 });
    // Each reply carried the tokens of its turn; the green sums them as self-reported.
    expect(record.usage).toEqual({
      prompt_tokens: 33,
      completion_tokens: 21,
      total_tokens: 54,
      requests: 3,
      self_reported: true,
    });
    const [first, second, third] = api.seen.map((s) => s.body);
    expect(first?.messages?.[0]).toEqual({ role: "system", content: AGENT_SYSTEM_PROMPT });
    expect(first?.messages?.[1]?.content).toBe(
      "Fix the build\n\nWorking directory: /testbed\nCommands allowed: 100".concat(
        "\nA command runs at most 60 s unless you give a timeout\nTime for the whole task: 1800 s",
      ),
    );
    expect(first?.tools?.map((t) => t.function.name)).toEqual(["bash", "submit"]);
    const observation = second?.messages?.at(-1);
    expect(observation).toMatchObject({ role: "tool", tool_call_id: "call_0" });
    expect(observation?.content).toMatch(
      /^<returncode>0<\/returncode>\n<stdout>\nf\n\n<\/stdout>\n\[\d+ commands left, \d+ s left\]$/,
    );
    expect(second?.messages?.at(-2)).toMatchObject({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_0" }],
    });
    expect(third?.messages?.at(-1)?.content).toContain(
      "<returncode>1</returncode>\n<stdout>\n\n</stdout>\n<stderr>\nnope\n</stderr>",
    );
    expect(api.seen).toHaveLength(3);
  });

  test("against AgentSWE's green: commands go back as artifact `bash`, the submitted diff as artifact `patch`", async () => {
    const diff = "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-a\n+b\n";
    api.script = [bash("cat f.py"), toolCalls([call("submit", { output: "Fixed:\n```diff\n" + diff + "```" })])];
    served = await servePurple(createAgentSolver(options()));
    const green = await converse(served.url);
    const issue = JSON.stringify({
      cwd: "/testbed",
      problem_statement: "f.py says a",
      hints_text: "",
      python_version: "3.9",
      fail_to_pass: [],
    });
    const first = await green.send(issue);
    expect(first).toMatchObject({ artifactName: "bash", text: "cat f.py" });
    // The model was told the issue and that its change is the final diff.
    expect(api.seen[0]?.body.messages?.[1]?.content).toContain("f.py says a");
    expect(api.seen[0]?.body.messages?.[1]?.content).toContain("reply final with your whole change as a unified diff");
    const second = await green.send({ cwd: "/testbed", stdout: "a\n", stderr: "" });
    expect(second).toMatchObject({ artifactName: "patch", text: diff });
    expect(api.seen[1]?.body.messages?.at(-1)?.content).toContain("<stdout>\na\n");
  });

  test("the step limit ends the episode with final (stop_reason step_limit)", async () => {
    api.fallback = bash("make");
    served = await servePurple(createAgentSolver(options({ maxSteps: 2 })));
    const green = await converse(served.url);
    expect((await green.send(task)).action).toEqual({ kind: "exec_request", command: "make" });
    expect((await green.send(result(2, "", "error"))).action).toEqual({ kind: "exec_request", command: "make" });
    const last = await green.send(result(2, "", "error"));
    expect(last.action).toEqual({ kind: "final" });
    expect(last.metadata).toMatchObject({ stop_reason: "step_limit", steps: 2, max_steps: 2 });
    expect(last.metadata).not.toHaveProperty("usage"); // no model call in this turn
    expect(api.seen).toHaveLength(2);
  });

  test("malformed tool calls are answered with the reason and cost a step, not a turn", async () => {
    api.script = [
      toolCalls([call("bash", "{not json")]),
      toolCalls([call("rm_rf", {})]),
      toolCalls([call("bash", { timeout: 3 })]),
      bash("pwd"),
      reply("All done."),
    ];
    served = await servePurple(createAgentSolver(options()));
    const green = await converse(served.url);
    const turn = await green.send(task);
    expect(turn.action).toEqual({ kind: "exec_request", command: "pwd" });
    expect(turn.metadata).toMatchObject({ steps: 4, invalid_tool_calls: 3 });
    expect(turn.metadata?.["usage"]).toMatchObject({ total_tokens: 72, requests: 4 });
    const tool = (i: number) => api.seen[i]?.body.messages?.at(-1)?.content;
    expect(tool(1)).toMatch(/^error: the arguments are not valid JSON: \{not json\. Call the tool again/);
    expect(tool(2)).toContain('there is no tool "rm_rf" (the tools are bash and submit)');
    expect(tool(3)).toContain('the bash tool needs a non-empty string "command"');
    const last = await green.send(result(0, "/testbed\n"));
    expect(last.action).toEqual({ kind: "final", output: "All done." });
    expect(last.metadata).toMatchObject({ stop_reason: "answered", steps: 5 });
  });

  test("several calls in one answer run one per turn, in order, before the model is asked again", async () => {
    api.script = [toolCalls([call("bash", { command: "a" }, "x1"), call("bash", { command: "b" }, "x2")]), reply("ok")];
    served = await servePurple(createAgentSolver(options()));
    const green = await converse(served.url);
    expect((await green.send(task)).action).toMatchObject({ command: "a" });
    expect((await green.send(result(0, "A"))).action).toMatchObject({ command: "b" });
    expect(api.seen).toHaveLength(1);
    expect((await green.send(result(0, "B"))).action).toEqual({ kind: "final", output: "ok" });
    const tools = api.seen[1]?.body.messages?.filter((m) => m.role === "tool");
    expect(tools?.map((m) => [m.tool_call_id, m.content.split("\n")[2]])).toEqual([
      ["x1", "A"],
      ["x2", "B"],
    ]);
  });

  test("usage and cost reported per turn and per episode; the cost limit ends the episode", async () => {
    api.fallback = bash("step");
    // 11 prompt + 7 completion tokens per call: 0.011 + 0.014 = 0.025 USD at these prices.
    const limits = { inputPricePerMTok: 1000, outputPricePerMTok: 2000, maxCostUsd: 0.04 };
    served = await servePurple(createAgentSolver(options(limits)));
    const green = await converse(served.url);
    const one = await green.send(task);
    expect(one.metadata).toMatchObject({
      model: "m-1",
      usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18, requests: 1 },
      episode_usage: { total_tokens: 18 },
    });
    expect(one.metadata?.["cost_usd"]).toBeCloseTo(0.025, 10);
    const two = await green.send(result(0));
    expect(two.metadata).toMatchObject({
      usage: { total_tokens: 18 },
      episode_usage: { total_tokens: 36, requests: 2 },
    });
    expect(two.metadata?.["cost_usd"]).toBeCloseTo(0.05, 10);
    const end = await green.send(result(0));
    expect(end.action).toEqual({ kind: "final" });
    expect(end.metadata).toMatchObject({ stop_reason: "cost_limit", steps: 2 });
    expect(api.seen).toHaveLength(2);
  });

  test("a server that reports no usage: tokens unknown, no cost, no cost limit enforced", async () => {
    api.script = [
      toolCalls([call("bash", { command: "x" })], { usage: null }),
      completion({ content: "fine" }, { usage: null }),
    ];
    const limits = { inputPricePerMTok: 1, outputPricePerMTok: 1, maxCostUsd: 0.000001 };
    served = await servePurple(createAgentSolver(options(limits)));
    const green = await converse(served.url);
    const one = await green.send(task);
    expect(one.action).toMatchObject({ command: "x" });
    expect(one.metadata).not.toHaveProperty("usage");
    expect(one.metadata).not.toHaveProperty("cost_usd");
    expect((await green.send(result(0))).action).toEqual({ kind: "final", output: "fine" });
  });

  test("a model error fails the turn and ends the episode; a plain message gets the openai mode's answer", async () => {
    api.script = [bash("ls"), status(400)];
    served = await servePurple(createAgentSolver(options()));
    const green = await converse(served.url);
    await green.send(task);
    const failed = await green.send(result(0));
    expect(failed.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(failed.text).toContain("chat completion failed");
    expect((await green.send(result(0))).text).toContain("no episode in context");
    api.reset();
    api.script = [reply("def f(): pass")];
    const plain = await (await converse(served.url)).send("Complete f");
    expect(plain.text).toBe("def f(): pass");
    expect(api.seen[0]?.body).not.toHaveProperty("tools");
  });

  test("needs a model, named for this mode", () => {
    expect(() => createAgentSolver({ env: { OPENAI_BASE_URL: api.baseUrl } })).toThrow(
      "agent mode needs --model (or OPENAI_MODEL)",
    );
  });
});
