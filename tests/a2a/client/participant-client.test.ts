import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPurpleApp } from "../../../src/purple/app.js";
import type { Solver } from "../../../src/purple/solver.js";
import { createA2AParticipant, replyFromResult } from "../../../src/a2a/client/participant-client.js";
import { serveOnLoopback } from "../helpers.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { silentLogger } from "../../../src/util/logger.js";
import { InfrastructureError } from "../../../src/util/infrastructure-error.js";
import { participantFailureMode } from "../../../src/runner/participant-failure.js";
import { startFakeParticipant } from "../fake-participant.js";

let agent: ServedApp & { url: string };
const seen: Array<{ text: string; data: unknown; metadata: unknown }> = [];
const solver: Solver = {
  mode: "probe",
  async solve(input) {
    seen.push({ text: input.text, data: input.data, metadata: input.metadata });
    if (input.text === "slow") await new Promise((r) => setTimeout(r, 1500));
    return { text: `got ${input.text}` };
  },
};

beforeAll(async () => {
  agent = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
});
afterAll(async () => {
  await agent.close();
});

describe("A2A participant (SDK client)", () => {
  it("sends text, DataPart and metadata; returns the reply text and final state", async () => {
    const p = createA2AParticipant({ url: agent.url, timeoutMs: 10_000, logger: silentLogger() });
    const reply = await p.ask(
      { text: "hello", data: { task_id: "t/1" }, metadata: { task_id: "t/1" } },
      new AbortController().signal,
    );
    expect(reply.text).toContain("got hello");
    expect(reply.state).toBe("completed");
    expect(seen.at(-1)).toMatchObject({ text: "hello", data: { task_id: "t/1" } });
    await p.close();
  });

  it("times out a slow answer without retrying it", async () => {
    const p = createA2AParticipant({ url: agent.url, timeoutMs: 300, logger: silentLogger() });
    const before = seen.length;
    await expect(p.ask({ text: "slow" }, new AbortController().signal)).rejects.toMatchObject({
      code: "E_PARTICIPANT_TIMEOUT",
    });
    expect(seen.length - before).toBe(1);
  });

  it("retries a failed request a bounded number of times; the failure is the participant's", async () => {
    const f = await startFakeParticipant({ answer: () => ({ kind: "http_500" }) });
    try {
      const p = createA2AParticipant({ url: f.url, timeoutMs: 2000, attempts: 2, logger: silentLogger() });
      await p.check!(new AbortController().signal);
      const err = await p.ask({ text: "x" }, new AbortController().signal).catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: "E_PARTICIPANT_TRANSPORT",
        message: expect.stringMatching(/after 2 attempts/),
      });
      expect(participantFailureMode(err)).toBe("model_participant_error");
      expect(f.hits.filter((h) => h.method === "POST")).toHaveLength(2);
    } finally {
      await f.close();
    }
  });

  for (const kind of ["malformed", "rpc_error", "reset"] as const) {
    it(`after the card was fetched, a ${kind} reply is the participant's failure (model_participant_error)`, async () => {
      const f = await startFakeParticipant({ answer: () => ({ kind }) });
      try {
        const p = createA2AParticipant({ url: f.url, timeoutMs: 2000, attempts: 1, logger: silentLogger() });
        await p.check!(new AbortController().signal);
        const err = await p.ask({ text: "x" }, new AbortController().signal).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: "E_PARTICIPANT_TRANSPORT" });
        expect(participantFailureMode(err)).toBe("model_participant_error");
      } finally {
        await f.close();
      }
    });
  }

  it("a caller's deadline among the signals is the participant's timeout, not our stop", async () => {
    const p = createA2AParticipant({ url: agent.url, timeoutMs: 10_000, logger: silentLogger() });
    const err = await p.ask({ text: "slow" }, AbortSignal.timeout(200)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "E_PARTICIPANT_TIMEOUT" });
    expect(participantFailureMode(err)).toBe("model_agent_timeout");
    const stopped = new AbortController();
    stopped.abort(new Error("SIGTERM"));
    await expect(p.ask({ text: "x" }, stopped.signal)).rejects.toMatchObject({ code: "E_PARTICIPANT_ABORTED" });
  });

  it("nothing at the URL: the card cannot be had, which is ours (InfrastructureError), never a scored failure", async () => {
    const p = createA2AParticipant({
      url: "http://127.0.0.1:1/",
      timeoutMs: 2000,
      attempts: 2,
      logger: silentLogger(),
    });
    const err = await p.ask({ text: "x" }, new AbortController().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InfrastructureError);
    expect(err).toMatchObject({ code: "E_PARTICIPANT_UNREACHABLE" });
    expect(participantFailureMode(err)).toBe("infrastructure_participant");
  });
});

describe("token usage in a reply", () => {
  const task = (metadata: Record<string, unknown> | undefined) =>
    ({
      id: "t",
      contextId: "c",
      history: [],
      metadata: undefined,
      status: { state: 3, message: undefined, timestamp: "" },
      artifacts: [
        {
          artifactId: "a",
          name: "response",
          description: "",
          extensions: [],
          metadata,
          parts: [
            { content: { $case: "text", value: "x" }, metadata: undefined, filename: "", mediaType: "text/plain" },
          ],
        },
      ],
    }) as unknown as Parameters<typeof replyFromResult>[0];

  it("is read from the artifact metadata `usage`", () => {
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7, reasoning_tokens: 1, requests: 1 };
    expect(replyFromResult(task({ usage, model: "m" })).usage).toEqual(usage);
  });

  it("a malformed or absent report is dropped, never trusted", () => {
    expect(replyFromResult(task(undefined)).usage).toBeUndefined();
    expect(
      replyFromResult(task({ usage: { prompt_tokens: -1, completion_tokens: 4, total_tokens: 3 } })).usage,
    ).toBeUndefined();
    expect(
      replyFromResult(task({ usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, cost_usd: 5 } })).usage,
    ).toBeUndefined();
    expect(replyFromResult(task({ usage: "lots" })).usage).toBeUndefined();
  });
});
