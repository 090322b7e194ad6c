import { afterAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { boundedFetch } from "../../../src/a2a/client/reply-limit.js";
import { WireRecorder, recordingWire } from "../../../src/a2a/client/wire-capture.js";
import { startFakeParticipant, type FakeParticipant } from "../fake-participant.js";

const fakes: FakeParticipant[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
});

describe("recordingWire", () => {
  it("keeps each POST body the capped reader read in its own recording, concurrent ones apart; GETs and unscoped reads never", async () => {
    const f = await startFakeParticipant({ answer: (n) => ({ kind: "raw", body: () => `{"n":${n}}` }) });
    fakes.push(f);
    const fetch1 = boundedFetch(1024 * 1024);
    const read = async (): Promise<string> => (await fetch1(f.url, { method: "POST", body: "{}" })).text();
    const a = new WireRecorder();
    const b = new WireRecorder();
    const [ta, tb] = await Promise.all([recordingWire(a, read), recordingWire(b, read)]);
    expect(a.replies.map((r) => r.body.toString())).toEqual([ta]);
    expect(b.replies.map((r) => r.body.toString())).toEqual([tb]);
    expect(a.last()).toMatchObject({
      status: 200,
      contentType: "application/json",
      contentEncoding: "",
      complete: true,
      sha256: createHash("sha256").update(ta).digest("hex"),
    });
    const c = new WireRecorder();
    await recordingWire(c, async () => (await fetch1(`${f.url}.well-known/agent-card.json`)).text());
    expect(c.replies).toEqual([]);
    await read(); // outside any recording: nothing is kept anywhere
    expect([a.replies.length, b.replies.length, c.replies.length]).toEqual([1, 1, 0]);
  });

  it("a body refused at the cap is kept as read, marked incomplete", async () => {
    const f = await startFakeParticipant({ answer: () => ({ kind: "flood", bytes: 10 * 1024 * 1024 }) });
    fakes.push(f);
    const rec = new WireRecorder();
    await recordingWire(rec, async () => {
      const res = await boundedFetch(64 * 1024)(f.url, { method: "POST", body: "{}" });
      await res.text().catch(() => "");
    });
    expect(rec.last()?.complete).toBe(false);
    expect(rec.last()!.body.length).toBeLessThanOrEqual(64 * 1024);
  });
});
