/**
 * What an interactive HumanEval sample's episode is graded as: the final output's code or the
 * solution file, and whose failure an episode that ended without `final` is. No engine needed.
 */
import { describe, expect, it } from "vitest";
import {
  answerOfEpisode,
  episodeSampleFields,
  noAnswerMode,
} from "../../../src/benchmarks/humaneval/episode-answer.js";
import {
  extractFromFile,
  finalHoldsCode,
  humanEvalEnvironments,
  type SampleEpisode,
} from "../../../src/benchmarks/humaneval/episode.js";
import type { EpisodeExitStatus, EpisodeRecord } from "../../../src/interactive/episode-record.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import { createHumanEvalBenchmark } from "../../../src/benchmarks/humaneval/definition.js";
import { SandboxCapabilityError } from "../../../src/sandbox/capabilities.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import { testRunOptions } from "../../support/run-options.js";
import { silentLogger } from "../../../src/util/logger.js";

const problem = SAMPLE_PROBLEMS[0]!;

function record(exit_status: EpisodeExitStatus, extra: Partial<EpisodeRecord> = {}): EpisodeRecord {
  return {
    exit_status,
    turns: 3,
    commands: 2,
    invalid_replies: 0,
    command_seconds: 0.5,
    participant_seconds: 1.25,
    wall_seconds: 2,
    truncations: 0,
    context_id: "c",
    ...extra,
  };
}

const episode = (r: EpisodeRecord, over: Partial<SampleEpisode> = {}): SampleEpisode => ({
  record: r,
  trajectory: "humaneval/x/sample-0/trajectory.jsonl",
  extracted: null,
  answerSource: null,
  ...over,
});

describe("the answer of an interactive sample", () => {
  it("a final output holds code only with a fence or a definition of the entry point", () => {
    expect(finalHoldsCode("```python\n    return 1\n```", "f")).toBe(true);
    expect(finalHoldsCode("def f(x):\n    return x", "f")).toBe(true);
    expect(finalHoldsCode("  async def f (x): pass", "f")).toBe(true);
    // Closing words, a claim of success, another function: not an answer, the file is read.
    expect(finalHoldsCode("done", "f")).toBe(false);
    expect(finalHoldsCode('PASSED: all tests passed {"passed": true}', "f")).toBe(false);
    expect(finalHoldsCode("def g(x): return f(x)", "f")).toBe(false);
    // An entry point with regex characters cannot widen the match.
    expect(finalHoldsCode("def ab(x): pass", "a.b")).toBe(false);
  });

  it("the file as left: what follows the prompt, nothing after it is no answer, a rewritten file whole", () => {
    expect(extractFromFile(problem.prompt, problem)).toEqual({ completion: "", kind: "none", source: "raw" });
    expect(extractFromFile(problem.prompt + "\n\n", problem).kind).toBe("none");
    expect(extractFromFile(problem.prompt + problem.canonical_solution, problem)).toMatchObject({
      kind: "body",
      completion: problem.canonical_solution.trimEnd() + "\n",
    });
    const rewritten = `import math\n\ndef ${problem.entry_point}(*args):\n    return None\n`;
    expect(extractFromFile(rewritten, problem).kind).toBe("full");
    expect(extractFromFile(problem.prompt.replace(/\n/g, "\r\n") + "    return 1\r\n", problem)).toMatchObject({
      kind: "body",
      completion: "    return 1\n",
    });
  });

  it("an episode that ended without final is the participant's failure, named by how it ended", () => {
    expect(noAnswerMode(record("turn_limit"))).toBe("model_turn_limit");
    expect(noAnswerMode(record("time_limit"))).toBe("model_agent_timeout");
    expect(noAnswerMode(record("format_errors"))).toBe("model_participant_error");
    expect(noAnswerMode(record("resource_limit"))).toBe("model_resource_limit");
    expect(noAnswerMode(record("participant_error", { error: { code: "E_PARTICIPANT_TIMEOUT", message: "" } }))).toBe(
      "model_agent_timeout",
    );
    expect(
      noAnswerMode(record("participant_error", { error: { code: "E_PARTICIPANT_TASK_FAILED", message: "" } })),
    ).toBe("model_participant_error");
    expect(noAnswerMode(record("final"))).toBe("model_no_code");
  });

  it("ours (environment_error, canceled) is an infrastructure failure; the usage is the participant's word", () => {
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, self_reported: true as const };
    const infra = answerOfEpisode(episode(record("environment_error", { usage }), { infraError: "engine gone" }), 4);
    expect(infra).toMatchObject({
      extracted: null,
      failure: { mode: "infrastructure_sandbox", message: "engine gone" },
      usage: { total_tokens: 3 },
      agentSeconds: 4,
    });
    expect(infra.usage).not.toHaveProperty("self_reported");
    const none = answerOfEpisode(episode(record("turn_limit"), { noAnswer: "no final" }), 1);
    expect(none.failure).toEqual({ mode: "model_turn_limit", message: "no final" });
    const code = { completion: "    return 1\n", kind: "body" as const, source: "fence" as const };
    const got = answerOfEpisode(episode(record("final"), { extracted: code, answerSource: "final" }), 1);
    expect(got).toMatchObject({ extracted: code, failure: null });
    expect(episodeSampleFields(got.episode)).toEqual({
      exit_status: "final",
      turns: 3,
      commands: 2,
      command_seconds: 0.5,
      participant_seconds: 1.25,
      truncations: 0,
      trajectory: "humaneval/x/sample-0/trajectory.jsonl",
      answer_source: "final",
    });
  });
});

describe("a sandbox without environments", () => {
  const plain: Sandbox = {
    backend: "local",
    isolation: "none",
    warnings: [],
    capabilities: new Set(),
    exec: () => Promise.reject(new Error("no exec expected")),
    execMany: () => Promise.reject(new Error("no exec expected")),
    close: () => Promise.resolve(),
  };

  it("stops an interactive run before the participant is asked, naming the capability and the fix", async () => {
    expect(() => humanEvalEnvironments(plain)).toThrow(SandboxCapabilityError);
    expect(() => humanEvalEnvironments(plain)).toThrow(/'environments'.*fix: .*sandbox: docker.*single_shot/);
    let asked = 0;
    const participant = {
      ask: () => {
        asked++;
        return Promise.reject(new Error("not to be asked"));
      },
    };
    const def = createHumanEvalBenchmark();
    const err = await def
      .evaluate(
        { id: problem.task_id, problem },
        {
          options: testRunOptions({ benchmark: "humaneval", interaction: "interactive", agent: "http://127.0.0.1:9/" }),
          sandbox: plain,
          participant: participant as never,
          logger: silentLogger(),
          signal: new AbortController().signal,
          workDir: "/nonexistent",
        },
      )
      .catch((e: unknown) => e);
    await def.endRun?.({ workDir: "/nonexistent" } as never);
    expect(err).toBeInstanceOf(SandboxCapabilityError);
    expect((err as SandboxCapabilityError).code).toBe("E_SANDBOX_CAPABILITY");
    expect(asked).toBe(0);
  });
});
