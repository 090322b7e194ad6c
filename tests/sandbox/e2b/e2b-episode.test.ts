/**
 * The interactive episode loop end to end on an e2b environment: runEpisode
 * with shellEnvironment over an E2B sandbox (the real SDK against the local
 * stand-in) and a scripted participant. Only the stand-in was exercised.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createSandbox, type Sandbox } from "../../../src/sandbox/index.js";
import { startE2bStandIn, type StandInServer } from "../../../src/sandbox/e2b/stand-in-server.js";
import { environmentsOf, type Environment } from "../../../src/sandbox/environment.js";
import { runEpisode } from "../../../src/interactive/episode.js";
import { shellEnvironment } from "../../../src/interactive/shell-environment.js";
import { silentLogger } from "../../../src/util/logger.js";
import { MemoryTrajectory, ScriptedSender } from "../../interactive/fakes.js";
import { jsonTask } from "../../interactive/replies.js";

const exec = (command: string, timeout?: number) =>
  jsonTask({ kind: "exec_request", command, ...(timeout !== undefined ? { timeout } : {}) });
const final = (output: string) => jsonTask({ kind: "final", output });

describe("an episode on an e2b environment (stand-in)", () => {
  let executor: Sandbox;
  let standIn: StandInServer;
  let e2b: Sandbox;
  let env: Environment;

  beforeAll(async () => {
    executor = await createSandbox({
      backend: "local",
      logger: silentLogger(),
      backendOptions: { forceIsolation: "bwrap" },
    });
    standIn = await startE2bStandIn({ executor, apiKey: "test-key" });
    e2b = await createSandbox({
      backend: "e2b",
      logger: silentLogger(),
      backendOptions: { apiKey: "test-key", apiUrl: standIn.url, sandboxUrl: standIn.url },
    });
    env = await environmentsOf(e2b, "test").openEnvironment({
      image: "swe-img",
      owner: "run-1",
      files: { dir: "/home/user/repo", entries: { "bug.py": "print(1 +)\n" } },
      lifetimeMs: 600_000,
    });
  });
  afterAll(async () => {
    await env?.close();
    await e2b?.close();
    await standIn?.close();
    await executor?.close();
  });

  test("a scripted exchange: commands run in the workdir, files persist, a command's timeout leaves the environment alive", async () => {
    const participant = new ScriptedSender([
      exec("python3 bug.py; echo fixed-next"),
      exec("printf 'print(1 + 1)\\n' > bug.py && python3 bug.py"),
      exec("echo partial; sleep 30", 1),
      exec("cat bug.py; ls missing"),
      final("done"),
    ]);
    const trajectory = new MemoryTrajectory();
    const record = await runEpisode({
      instruction: "Fix bug.py",
      participant,
      environment: shellEnvironment(env, { workdir: "/home/user/repo" }),
      trajectory,
    });
    expect(record).toMatchObject({ exit_status: "final", final_output: "done", commands: 4, turns: 5 });
    const sent = participant.payloads();
    expect(sent[1]).toMatchObject({ kind: "exec_result", exit_code: 0, stdout: "fixed-next\n" });
    expect(sent[1]!["stderr"]).toMatch(/SyntaxError/);
    expect(sent[2]).toMatchObject({ kind: "exec_result", exit_code: 0, stdout: "2\n" });
    expect(sent[3]).toMatchObject({ kind: "exec_result", timed_out: true, stdout: "partial\n" });
    expect(sent[4]).toMatchObject({ kind: "exec_result", exit_code: 2, stdout: "print(1 + 1)\n" });
    expect(sent[4]!["stderr"]).toMatch(/missing/);
    // The environment outlived the command's timeout and holds the participant's change for grading.
    expect(standIn.live.has(env.id)).toBe(true);
    expect(await env.readFile("/home/user/repo/bug.py")).toBe("print(1 + 1)\n");
  }, 120_000);
});
