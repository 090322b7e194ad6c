/**
 * Our purple's `gold`, `echo` and `agent` modes answering two other teams' greens exactly as those
 * greens send and read (other-greens.ts: RDI's Terminal-Bench green streams over the 0.3 wire and
 * `json.loads` the status message + artifacts; AgentSWE's green sends blocking and takes the action
 * from the last artifact's name). Whole episodes: every reply must be one the green accepts (state
 * `completed`, the payload it parses), and the episode must end the way the mode ends it.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { createAgentSolver } from "../../../src/purple/solvers/agent.js";
import { createEchoSolver } from "../../../src/purple/solvers/echo.js";
import { createGoldSolver } from "../../../src/purple/solvers/gold.js";
import { HUMANEVAL_SOLUTION_FILE } from "../../../src/purple/solvers/gold-episode.js";
import type { SolverOptions } from "../../../src/purple/solvers/index.js";
import { call, startStandIn, toolCalls, type StandIn } from "../../support/openai-stand-in.js";
import { BashEnvironment, servePurple } from "./scripted-green.js";
import { otherGreen, pyDumps, rdiCommand, rdiDecode } from "./other-greens.js";

let api: StandIn;
let dir: string;
let served: (ServedApp & { url: string }) | undefined;
beforeAll(async () => {
  api = await startStandIn();
  dir = await mkdtemp(join(tmpdir(), "other-greens-"));
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => api.reset());
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const agentOptions = (): SolverOptions => ({
  model: "m-1",
  env: { OPENAI_BASE_URL: api.baseUrl, OPENAI_API_KEY: "sk-test" },
  openai: { maxRetries: 0 },
  agent: {},
});

/** RDI's task message: json.dumps of kind, protocol, instruction. */
const rdiTask = (instruction: string): string =>
  pyDumps({ kind: "task", protocol: "terminal-bench-shell-v1", instruction });

/** RDI's loop (src/agent.py `_run_agent_session`): run each exec_request in `cwd` until `final`; the payloads. */
async function rdiEpisode(url: string, instruction: string, cwd: string, maxTurns = 12) {
  const green = await otherGreen(url, true);
  const env = new BashEnvironment(cwd);
  const payloads: Record<string, unknown>[] = [];
  let outbound = rdiTask(instruction);
  for (let turn = 0; turn < maxTurns; turn++) {
    const payload = rdiDecode((await green.send(outbound)).response);
    payloads.push(payload);
    if (payload["kind"] === "final") return { payloads, commands: env.commands };
    const { command, timeout } = rdiCommand(payload);
    const r = await env.run(command, timeout);
    outbound = pyDumps({ kind: "exec_result", exit_code: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr });
  }
  throw new Error(`no final in ${maxTurns} turns: ${JSON.stringify(payloads)}`);
}

describe("RDI's Terminal-Bench green (streamed, 0.3, the reply json.loads-ed)", () => {
  test("echo: `final` at once, a reply the green parses as JSON", async () => {
    served = await servePurple(createEchoSolver());
    const work = await mkdtemp(join(dir, "echo-"));
    const { payloads, commands } = await rdiEpisode(served.url, "Create hello.txt", work);
    expect(payloads).toHaveLength(1);
    expect(payloads[0]).toMatchObject({ kind: "final" });
    expect(commands).toEqual([]);
  });

  test("gold: the HumanEval task named only by its instruction is solved through exec_requests, then final", async () => {
    served = await servePurple(createGoldSolver());
    const p = SAMPLE_PROBLEMS[2]!;
    const work = await mkdtemp(join(dir, "gold-"));
    const { payloads, commands } = await rdiEpisode(served.url, p.prompt, work);
    expect(commands.length).toBeGreaterThan(0);
    expect(payloads.at(-1)).toMatchObject({ kind: "final" });
    expect(await readFile(join(work, HUMANEVAL_SOLUTION_FILE), "utf8")).toBe(p.prompt + p.canonical_solution);
  });

  test("agent: the model's bash call is an exec_request with an integer timeout, its submit the final", async () => {
    api.script = [
      toolCalls([call("bash", { command: "echo made > out.txt" })]),
      toolCalls([call("submit", { output: "done" })]),
    ];
    served = await servePurple(createAgentSolver(agentOptions()));
    const work = await mkdtemp(join(dir, "agent-"));
    const { payloads, commands } = await rdiEpisode(served.url, "Write out.txt", work);
    expect(commands).toEqual(["echo made > out.txt"]);
    expect(payloads).toHaveLength(2);
    expect(payloads[1]).toMatchObject({ kind: "final", output: "done" });
    expect(await readFile(join(work, "out.txt"), "utf8")).toBe("made\n");
    // The model saw the command's result as the green sent it.
    expect(api.seen[1]?.body.messages?.at(-1)).toMatchObject({ role: "tool" });
  });
});

describe("AgentSWE's green (blocking, 0.3, the action from the last artifact's name)", () => {
  const PATCH = "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-a\n+b\n";
  const ISSUE = "f.py says a where its callers need b";
  /** Its first message: the pydantic model's compact JSON. */
  const TASK = JSON.stringify({
    cwd: "/testbed",
    problem_statement: ISSUE,
    hints_text: "",
    python_version: "3.9",
    fail_to_pass: ["tests/test_f.py::test_b"],
  });
  let instances: string;
  beforeAll(async () => {
    instances = join(dir, "instances.json");
    const instance = {
      instance_id: "demo__demo-9",
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

  test("gold: action `patch`, the content exactly the gold diff (no status text before it)", async () => {
    served = await servePurple(createGoldSolver({ datasets: [instances] }));
    const read = await (await otherGreen(served.url, false)).send(TASK);
    expect(read).toMatchObject({ action: "patch", response: PATCH });
  });

  test("echo: action `patch`, empty content", async () => {
    served = await servePurple(createEchoSolver());
    const read = await (await otherGreen(served.url, false)).send(TASK);
    expect(read).toMatchObject({ action: "patch", response: "" });
  });

  test("agent: action `bash` with the bare command, then `patch` with the submitted diff", async () => {
    api.script = [
      toolCalls([call("bash", { command: "cat f.py" })]),
      toolCalls([call("submit", { output: "Fixed:\n```diff\n" + PATCH + "```" })]),
    ];
    served = await servePurple(createAgentSolver(agentOptions()));
    const green = await otherGreen(served.url, false);
    expect(await green.send(TASK)).toMatchObject({ action: "bash", response: "cat f.py" });
    const second = await green.send(pyDumps({ cwd: "/testbed", stdout: "a\n", stderr: "" }));
    expect(second).toMatchObject({ action: "patch", response: PATCH });
  });
});
