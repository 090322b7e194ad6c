/**
 * Requests go to the participant URL exactly as given, path prefix included;
 * the card's `url`, `additionalInterfaces` and `supportedInterfaces` never
 * route them (else a card could make the harness POST every task to any
 * loopback service), and no redirect is followed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AClient } from "../../../src/a2a/client/client.js";
import { createA2AParticipant } from "../../../src/a2a/client/participant-client.js";
import { silentLogger } from "../../../src/util/logger.js";
import { startFakeParticipant, startRecorder, type FakeParticipant } from "../fake-participant.js";
import { userMessage, textPart } from "../../../src/a2a/shared/parts.js";

let recorder: Awaited<ReturnType<typeof startRecorder>>;
const fakes: FakeParticipant[] = [];

beforeAll(async () => {
  recorder = await startRecorder();
});
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  await recorder.close();
});

async function fake(...args: Parameters<typeof startFakeParticipant>): Promise<FakeParticipant> {
  const f = await startFakeParticipant(...args);
  fakes.push(f);
  return f;
}

describe("the card's URLs never route a request", () => {
  for (const cardShape of ["legacy", "v1"] as const) {
    it(`${cardShape} card pointing at another loopback server: it gets nothing, the prefixed participant URL gets the question`, async () => {
      const before = recorder.hits.length;
      const f = await fake({
        prefix: "/agents/x/",
        cardShape,
        cardUrl: () => recorder.url,
        answer: () => ({ kind: "text", text: "answer" }),
      });
      const p = createA2AParticipant({ url: f.url, timeoutMs: 10_000, logger: silentLogger() });
      await p.check!(new AbortController().signal);
      const reply = await p.ask({ text: "q" }, new AbortController().signal);
      expect(reply.text).toBe("answer");
      await p.close();
      expect(recorder.hits.length - before).toBe(0);
      const posts = f.hits.filter((h) => h.method === "POST");
      expect(posts).toEqual([
        { method: "POST", path: "/agents/x/", rpcMethod: cardShape === "legacy" ? "message/send" : "SendMessage" },
      ]);
    });
  }

  it("createA2AClient on the 0.3 wire posts to the given URL too", async () => {
    const before = recorder.hits.length;
    const f = await fake({
      prefix: "/agents/y/",
      cardUrl: () => recorder.url,
      answer: () => ({ kind: "text", text: "ok" }),
    });
    const client = await createA2AClient(f.url, "0.3");
    await client.sendMessage({
      tenant: "",
      message: userMessage([textPart("q")]),
      configuration: undefined,
      metadata: undefined,
    });
    expect(recorder.hits.length - before).toBe(0);
    expect(f.hits.filter((h) => h.method === "POST").map((h) => h.path)).toEqual(["/agents/y/"]);
  });

  it("a URL naming the card file itself is asked at the agent's root, not at the card", async () => {
    const f = await fake({
      prefix: "/agents/z/",
      cardUrl: () => recorder.url,
      answer: () => ({ kind: "text", text: "ok" }),
    });
    const p = createA2AParticipant({
      url: `${f.url}.well-known/agent-card.json`,
      timeoutMs: 10_000,
      logger: silentLogger(),
    });
    await p.check!(new AbortController().signal);
    await p.ask({ text: "q" }, new AbortController().signal);
    expect(f.hits.filter((h) => h.method === "POST").map((h) => h.path)).toEqual(["/agents/z/"]);
  });

  it("a redirect is not followed: the question fails as the participant's, the target sees nothing", async () => {
    const before = recorder.hits.length;
    const f = await fake({ answer: () => ({ kind: "redirect", to: recorder.url }) });
    const p = createA2AParticipant({ url: f.url, timeoutMs: 10_000, attempts: 1, logger: silentLogger() });
    await p.check!(new AbortController().signal);
    await expect(p.ask({ text: "q" }, new AbortController().signal)).rejects.toMatchObject({
      code: "E_PARTICIPANT_TRANSPORT",
    });
    expect(recorder.hits.length - before).toBe(0);
  });
});
