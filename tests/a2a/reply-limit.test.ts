/**
 * A participant's reply is bounded: the body is counted as it streams (JSON
 * or SSE) and the read is aborted once past the cap, so a participant that
 * answers 50 MB costs the runner about the cap, and the item fails as the
 * participant's with "participant reply exceeded N bytes".
 */
import { afterAll, describe, expect, it } from "vitest";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DEFAULT_MAX_REPLY_BYTES,
  MAX_REPLY_ENV,
  ReplyTooLargeError,
  boundedFetch,
  maxReplyBytes,
} from "../../src/a2a/reply-limit.js";
import { createA2AParticipant } from "../../src/a2a/participant-client.js";
import { participantFailureMode } from "../../src/runner/participant-failure.js";
import { silentLogger } from "../../src/util/logger.js";
import { startFakeParticipant, type FakeParticipant } from "./fake-participant.js";

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
