/**
 * A participant's reply is bounded: the body is counted as it streams (JSON
 * or SSE) and the read is aborted once past the cap, so a participant that
 * answers 50 MB costs the runner about the cap, and the item fails as the
 * participant's with "participant reply exceeded N bytes". The cap counts the
 * bytes the body decodes to (a gzip or brotli bomb stops at the cap), and JSON
 * nested deeper than MAX_REPLY_DEPTH is refused before anything parses it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DEFAULT_MAX_REPLY_BYTES,
  JsonDepthScanner,
  MAX_REPLY_DEPTH,
  MAX_REPLY_ENV,
  ReplyTooDeepError,
  ReplyTooLargeError,
  boundedFetch,
  maxReplyBytes,
} from "../../../src/a2a/client/reply-limit.js";
import { compressionBomb, deepArray, peakRssGrowth } from "../bombs.js";
import { createA2AParticipant } from "../../../src/a2a/client/participant-client.js";
import { participantFailureMode } from "../../../src/runner/participant-failure.js";
import { silentLogger } from "../../../src/util/logger.js";
import { startFakeParticipant, type FakeParticipant } from "../fake-participant.js";

const MB = 1024 * 1024;
const fakes: FakeParticipant[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

async function fake(...args: Parameters<typeof startFakeParticipant>): Promise<FakeParticipant> {
  const f = await startFakeParticipant(...args);
  fakes.push(f);
  return f;
}

describe("boundedFetch", () => {
  it("passes a reply under the cap through unchanged", async () => {
    const f = await fake({ answer: () => ({ kind: "text", text: "small" }) });
    const res = await boundedFetch(1 * MB)(f.url, { method: "POST", body: "{}" });
    expect(JSON.parse(await res.text())).toMatchObject({ result: { parts: [{ text: "small" }] } });
  });

  it("refuses a declared Content-Length over the cap before reading it", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(10 * MB) });
      res.write("{");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      await expect(boundedFetch(MB)(url)).rejects.toMatchObject({
        code: "E_PARTICIPANT_REPLY_TOO_LARGE",
        bytesSeen: 10 * MB,
        message: `participant reply exceeded ${MB} bytes`,
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  for (const sse of [false, true]) {
    it(`aborts a streamed ${sse ? "SSE" : "JSON"} body once past the cap, having read about the cap`, async () => {
      const f = await fake({ answer: () => ({ kind: "flood", bytes: 50 * MB, sse }) });
      const res = await boundedFetch(MB)(f.url, { method: "POST", body: "{}" });
      const err = await res.text().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ReplyTooLargeError);
      expect((err as ReplyTooLargeError).bytesSeen).toBeGreaterThan(MB);
      expect((err as ReplyTooLargeError).bytesSeen).toBeLessThan(MB + 512 * 1024);
      // The server stopped being read: it wrote far less than the 50 MB it meant to (socket buffers aside).
      await new Promise((r) => setTimeout(r, 100));
      expect(f.floodBytesWritten).toBeLessThan(20 * MB);
    });
  }
});

describe("the cap of a run", () => {
  it("config wins, then the env, then 4 MiB; a bad env value is named", () => {
    expect(maxReplyBytes(2048, { [MAX_REPLY_ENV]: "4096" })).toBe(2048);
    expect(maxReplyBytes(undefined, { [MAX_REPLY_ENV]: "4096" })).toBe(4096);
    expect(maxReplyBytes(undefined, {})).toBe(DEFAULT_MAX_REPLY_BYTES);
    expect(DEFAULT_MAX_REPLY_BYTES).toBe(4 * MB);
    expect(() => maxReplyBytes(undefined, { [MAX_REPLY_ENV]: "lots" })).toThrow(
      /A2A_BENCH_MAX_PARTICIPANT_REPLY_BYTES must be an integer number of bytes from 1024 to 33554432, got "lots"/,
    );
    expect(() => maxReplyBytes(undefined, { [MAX_REPLY_ENV]: String(1024 * MB) })).toThrow(/from 1024 to 33554432/);
  });
});

describe("a participant answering 50 MB", () => {
  it("fails the question with the participant's reason, not retried, with the runner's memory bounded", async () => {
    const f = await fake({ answer: () => ({ kind: "flood", bytes: 50 * MB }) });
    const p = createA2AParticipant({ url: f.url, timeoutMs: 30_000, maxReplyBytes: 2 * MB, logger: silentLogger() });
    await p.check!(new AbortController().signal);
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const err = await p.ask({ text: "q" }, new AbortController().signal).then(
      () => null,
      (e: unknown) => e,
    );
    clearInterval(sampler);
    expect(err).toMatchObject({
      code: "E_PARTICIPANT_REPLY_TOO_LARGE",
      message: `participant reply exceeded ${2 * MB} bytes`,
    });
    expect(participantFailureMode(err)).toBe("model_participant_error");
    expect(f.hits.filter((h) => h.method === "POST")).toHaveLength(1); // asking again would read another flood
    expect(peak - rssBefore).toBeLessThan(100 * MB);
  });
});

/** The head of a JSON-RPC reply (0.3 wire) up to its one text part's value (the bomb's fill follows). */
const TEXT_REPLY_HEAD =
  '{"jsonrpc":"2.0","id":0,"result":{"kind":"message","messageId":"m","role":"agent","parts":[{"kind":"text","text":"';

describe("a reply served as a compression bomb", () => {
  for (const encoding of ["gzip", "br"] as const) {
    it(`(${encoding}, 256 MiB decoded) fails the question as the participant's, having read about the cap`, async () => {
      // Built once, so its id may not be the request's: the cap stops the read long before the id is checked.
      const bomb = await compressionBomb(encoding, TEXT_REPLY_HEAD, 256 * MB, '"}]}}');
      expect(bomb.length).toBeLessThan(2 * MB);
      const f = await fake({
        answer: () => ({ kind: "raw", body: () => bomb, headers: { "content-encoding": encoding } }),
      });
      const p = createA2AParticipant({ url: f.url, timeoutMs: 60_000, maxReplyBytes: 2 * MB, logger: silentLogger() });
      await p.check!(new AbortController().signal);
      const { value: err, growth } = await peakRssGrowth(() =>
        p.ask({ text: "q" }, new AbortController().signal).then(
          () => null,
          (e: unknown) => e,
        ),
      );
      expect(err).toMatchObject({ code: "E_PARTICIPANT_REPLY_TOO_LARGE" });
      const cause = (err as { cause?: unknown }).cause;
      let tooLarge: unknown = cause;
      while (tooLarge && !(tooLarge instanceof ReplyTooLargeError)) tooLarge = (tooLarge as { cause?: unknown }).cause;
      expect((tooLarge as ReplyTooLargeError).bytesSeen).toBeLessThan(3 * MB);
      expect(participantFailureMode(err)).toBe("model_participant_error");
      expect(growth).toBeLessThan(128 * MB);
      await p.close();
    });
  }
});

describe("a reply nested 300,000 deep", () => {
  it("is refused by the reader (ReplyTooDeepError) and fails the question as the participant's", async () => {
    const f = await fake({
      answer: () => ({
        kind: "raw",
        body: (id) =>
          `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"kind":"message","messageId":"m","role":"agent",` +
          `"parts":[{"kind":"data","data":{"x":${deepArray(300_000)}}}]}}`,
      }),
    });
    const p = createA2AParticipant({ url: f.url, timeoutMs: 30_000, logger: silentLogger() });
    await p.check!(new AbortController().signal);
    const err = await p.ask({ text: "q" }, new AbortController().signal).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: "E_PARTICIPANT_REPLY_TOO_DEEP" });
    expect(participantFailureMode(err)).toBe("model_participant_error");
    expect(f.hits.filter((h) => h.method === "POST")).toHaveLength(1);
    await p.close();
  });

  it("boundedFetch errors the body read once the nesting passes the limit", async () => {
    const f = await fake({ answer: () => ({ kind: "raw", body: () => deepArray(MAX_REPLY_DEPTH + 1) }) });
    const res = await boundedFetch(MB)(f.url, { method: "POST", body: "{}" });
    await expect(res.text()).rejects.toBeInstanceOf(ReplyTooDeepError);
    const ok = await fake({ answer: () => ({ kind: "raw", body: () => deepArray(MAX_REPLY_DEPTH) }) });
    const fine = await boundedFetch(MB)(ok.url, { method: "POST", body: "{}" });
    expect(await fine.text()).toBe(deepArray(MAX_REPLY_DEPTH));
  });
});

describe("JsonDepthScanner", () => {
  const depthOf = (...chunks: string[]): number => {
    const s = new JsonDepthScanner();
    let d = 0;
    for (const c of chunks) d = s.feed(Buffer.from(c));
    return d;
  };
  it("counts nesting outside strings, across chunks", () => {
    expect(depthOf('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(depthOf('{"a":[1,', '{"b":[', "]}]}")).toBe(4);
    expect(depthOf('{"a":"[[[[{{{{"}')).toBe(1);
    expect(depthOf(String.raw`{"a":"\\"`, ',"b":[[]]}')).toBe(3); // an escaped backslash, then the closing quote
    expect(depthOf(String.raw`{"a":"\"[[[["}`)).toBe(1); // an escaped quote does not end the string
  });
  it("never goes below zero, and a raw newline ends a string (SSE framing cannot hide brackets)", () => {
    expect(depthOf("]]]]]][[[")).toBe(3);
    expect(depthOf('event: "x\ndata: [[[[\n')).toBe(4);
  });
});
