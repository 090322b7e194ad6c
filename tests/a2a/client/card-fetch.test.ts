/**
 * The agent card is the participant's bytes like any reply: read through the
 * capped reader, whose cap counts the bytes the body DECODES to. Attacks: a
 * card served gzip or brotli that decodes to 256 MiB (a few hundred KB on the
 * wire), a card nested 300,000 deep. And the card is fetched once per run:
 * episodes use the run participant's client.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createA2AClient } from "../../../src/a2a/client/client.js";
import { CardFetchError } from "../../../src/a2a/client/card-fetch.js";
import { createA2AParticipant } from "../../../src/a2a/client/participant-client.js";
import { ReplyTooDeepError, ReplyTooLargeError } from "../../../src/a2a/client/reply-limit.js";
import { createA2ATurnSender } from "../../../src/interactive/a2a-sender.js";
import { textPart, userMessage } from "../../../src/a2a/shared/parts.js";
import { silentLogger } from "../../../src/util/logger.js";
import { card, startFakeParticipant, type FakeOptions, type FakeParticipant } from "../fake-participant.js";
import { compressionBomb, deepArray, peakRssGrowth, type Encoding } from "../bombs.js";

const MiB = 1024 * 1024;
const fakes: FakeParticipant[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

async function fake(o: FakeOptions): Promise<FakeParticipant> {
  const f = await startFakeParticipant(o);
  fakes.push(f);
  return f;
}

/** A real card's JSON with a `description` of `size` bytes, compressed: the bomb. */
async function bombCard(encoding: Encoding, size: number): Promise<Buffer> {
  const text = JSON.stringify({ ...card("legacy", "http://127.0.0.1:1/"), description: "" });
  const [head, tail] = text.split('"description":""');
  return compressionBomb(encoding, `${head}"description":"`, size, `"${tail}`);
}

const noAnswer = (): never => {
  throw new Error("no question expected");
};

describe("a card served as a compression bomb", () => {
  for (const encoding of ["gzip", "br"] as const) {
    it(`(${encoding}, 256 MiB decoded) is refused at the cap, having read about the cap`, async () => {
      const body = await bombCard(encoding, 256 * MiB);
      expect(body.length).toBeLessThan(2 * MiB); // what travels is small
      const f = await fake({
        answer: noAnswer,
        rawCard: { body, headers: { "content-type": "application/json", "content-encoding": encoding } },
      });
      const { value: err, growth } = await peakRssGrowth(() =>
        createA2AClient(f.url, "1.0", "JSONRPC", { maxReplyBytes: 4 * MiB }).then(
          () => null,
          (e: unknown) => e,
        ),
      );
      expect(err).toBeInstanceOf(CardFetchError);
      expect(err).toMatchObject({ failure: "too_large", message: expect.stringMatching(/exceeded 4194304 bytes/) });
      const tooLarge = (err as CardFetchError).cause;
      expect(tooLarge).toBeInstanceOf(ReplyTooLargeError);
      expect((tooLarge as ReplyTooLargeError).bytesSeen).toBeGreaterThan(4 * MiB);
      expect((tooLarge as ReplyTooLargeError).bytesSeen).toBeLessThan(5 * MiB);
      // Read whole, 256 MiB decoded is held at least once as bytes and once as text.
      expect(growth).toBeLessThan(128 * MiB);
    });
  }

  it("stops the run at the participant check as unreachable, naming the cap, and is not retried", async () => {
    const body = await bombCard("gzip", 64 * MiB);
    const f = await fake({
      answer: noAnswer,
      rawCard: { body, headers: { "content-type": "application/json", "content-encoding": "gzip" } },
    });
    const p = createA2AParticipant({ url: f.url, timeoutMs: 30_000, logger: silentLogger() });
    await expect(p.check!(new AbortController().signal)).rejects.toMatchObject({
      code: "E_PARTICIPANT_UNREACHABLE",
      message: expect.stringMatching(/participant reply exceeded 4194304 bytes/),
    });
    expect(f.hits.filter((h) => h.method === "GET")).toHaveLength(1);
  });
});

it("a card nested 300,000 deep is refused before it is parsed (too_deep)", async () => {
  const f = await fake({
    answer: noAnswer,
    rawCard: {
      body: JSON.stringify({ ...card("legacy", "http://127.0.0.1:1/") }).replace(/}$/, `,"x":${deepArray(300_000)}}`),
      headers: { "content-type": "application/json" },
    },
  });
  const err = await createA2AClient(f.url).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toMatchObject({ failure: "too_deep" });
  expect((err as CardFetchError).cause).toBeInstanceOf(ReplyTooDeepError);
});

it("episodes on the run participant's client fetch the card once per run, not once per episode", async () => {
  const f = await fake({ answer: () => ({ kind: "text", text: '{"kind":"final","output":"done"}' }) });
  const p = createA2AParticipant({ url: f.url, timeoutMs: 30_000, logger: silentLogger() });
  await p.check!(new AbortController().signal);
  for (let episode = 0; episode < 3; episode++) {
    const sender = createA2ATurnSender({ url: f.url, client: p.client!.bind(p) });
    await sender.send(userMessage([textPart("go")]), new AbortController().signal);
  }
  expect(f.hits.filter((h) => h.method === "POST")).toHaveLength(3);
  expect(f.hits.filter((h) => h.method === "GET")).toHaveLength(1);
});
