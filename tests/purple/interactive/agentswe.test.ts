/**
 * Our purple modes against AgentSWE's green, as that green speaks: its messages (the issue as
 * JSON without a `kind`, then `{cwd, stdout, stderr}`, `patch_failed`, `error`) read as the
 * episode's own, and each step answered as its messenger reads a reply: the action from the
 * artifact's NAME, the command or diff from the text.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { AGENTSWE_NOTE, agentSweReply, decodeAgentSweMessage } from "../../../src/purple/interactive/agentswe.js";
import { createGoldSolver } from "../../../src/purple/solvers/gold.js";
import { createEchoSolver } from "../../../src/purple/solvers/echo.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { converse, servePurple } from "./scripted-green.js";

const PATCH =
  "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n";
const ISSUE = "f returns 1 where the callers need 2";
/** The first message, as the green's pydantic model writes it (model_dump_json: compact). */
const TASK = JSON.stringify({
  cwd: "/testbed",
  problem_statement: ISSUE,
  hints_text: "see f.py",
  python_version: "3.9",
  fail_to_pass: ["tests/test_f.py::test_two"],
});
/** Later messages, as json.dumps writes them. */
const dumps = (o: Record<string, unknown>): string =>
  `{${Object.entries(o)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(", ")}}`;

describe("the AgentSWE green's messages", () => {
  test("the issue is a task: its text, the hints, and the note that the change is the final diff", () => {
    const m = decodeAgentSweMessage(TASK);
    expect(m).toMatchObject({ kind: "task", task: { kind: "task", workdir: "/testbed" } });
    const instruction = m?.kind === "task" ? m.task.instruction : "";
    expect(instruction).toContain(ISSUE);
    expect(instruction).toContain("see f.py");
    expect(instruction).toContain(AGENTSWE_NOTE);
  });

  test("results: bash and debug outputs, a failed patch, an unread reply", () => {
    expect(decodeAgentSweMessage(dumps({ cwd: "/testbed", stdout: "f.py\n", stderr: "" }))).toEqual({
      kind: "exec_result",
      result: { kind: "exec_result", exit_code: 0, stdout: "f.py\n", stderr: "" },
    });
    const debug = dumps({ debug_result: true, cwd: "/testbed", stdout: "", stderr: "boom", success: false, note: "x" });
    expect(decodeAgentSweMessage(debug)).toMatchObject({ result: { exit_code: 1, stderr: "boom" } });
    const failed = dumps({ patch_failed: true, cwd: "/testbed", stderr: "corrupt patch", message: "Patch failed." });
    expect(decodeAgentSweMessage(failed)).toMatchObject({ result: { exit_code: 1 } });
    expect(decodeAgentSweMessage(failed)?.kind === "exec_result" && decodeAgentSweMessage(failed)).toMatchObject({
      result: { stderr: expect.stringContaining("corrupt patch") },
    });
    const error = dumps({ error: "Invalid response format", message: "Please respond with JSON", cwd: "/testbed" });
    expect(decodeAgentSweMessage(error)).toMatchObject({
      result: { exit_code: 1, stderr: expect.stringContaining("Invalid") },
    });
  });

  test("our own protocol's messages and other JSON are not AgentSWE's", () => {
    expect(decodeAgentSweMessage('{"kind":"task","instruction":"x"}')).toBeUndefined();
    expect(
      decodeAgentSweMessage('{"kind":"exec_result","exit_code":0,"stdout":"","stderr":"","cwd":"/"}'),
    ).toBeUndefined();
    expect(decodeAgentSweMessage('{"task_id":"HumanEval/0"}')).toBeUndefined();
    expect(decodeAgentSweMessage("Complete the function")).toBeUndefined();
  });

  test("steps go back as the green reads them: bash with the command, patch with the diff out of the prose", () => {
    expect(agentSweReply({ action: { kind: "exec_request", command: "ls" } })).toMatchObject({
      artifactName: "bash",
      text: "ls",
    });
    const final = agentSweReply({ action: { kind: "final", output: "My fix:\n```diff\n" + PATCH + "```\n" } });
    expect(final).toMatchObject({ artifactName: "patch", text: PATCH });
    expect(agentSweReply({ action: { kind: "final" } })).toMatchObject({ artifactName: "patch", text: "" });
  });
});

describe("purple modes on loopback, answering AgentSWE's green", () => {
  let dir: string;
  let instances: string;
  let served: (ServedApp & { url: string }) | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentswe-purple-"));
    instances = join(dir, "instances.json");
    const instance = {
      instance_id: "demo__demo-7",
      repo: "demo/demo",
      base_commit: "HEAD",
      problem_statement: ISSUE,
      patch: PATCH,
      test_patch: "diff --git a/t.py b/t.py\n",
      FAIL_TO_PASS: [],
      PASS_TO_PASS: [],
    };
    await writeFile(instances, JSON.stringify([instance]));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  test("gold identifies the issue and answers with its patch as the artifact `patch`", async () => {
    served = await servePurple(createGoldSolver({ datasets: [instances] }));
    const reply = await (await converse(served.url)).send(TASK);
    expect(reply.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(reply.task.artifacts).toHaveLength(1);
    expect(reply.artifactName).toBe("patch");
    expect(reply.text).toBe(PATCH);
  });

  test("gold with an issue it does not know sends a patch that says why (the green ends after its retries)", async () => {
    served = await servePurple(createGoldSolver({ datasets: [instances] }));
    const reply = await (await converse(served.url)).send(TASK.replace(ISSUE, "something nobody filed, ever"));
    expect(reply.artifactName).toBe("patch");
    expect(reply.text).toMatch(/^gold: no reference answer:/);
  });

  test("echo gives up at once: an empty patch", async () => {
    served = await servePurple(createEchoSolver());
    const reply = await (await converse(served.url)).send(TASK);
    expect(reply).toMatchObject({ artifactName: "patch", text: "" });
  });
});
