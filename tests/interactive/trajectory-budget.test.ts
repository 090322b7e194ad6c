import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  KEPT_WHOLE_BYTES,
  LINE_RESERVE_BYTES,
  cutText,
  fitLine,
  type Elision,
} from "../../src/interactive/trajectory-budget.js";

const sha256 = (s: string): string => createHash("sha256").update(s).digest("hex");
const bytes = (s: string): number => Buffer.byteLength(s);

describe("cutText", () => {
  test("keeps text under the room whole; cuts longer text to head + marker + tail, never splitting a character", () => {
    expect(cutText("short", 100)).toEqual({ text: "short", elidedBytes: 0 });
    const text = "é".repeat(1000); // 2 bytes each
    const cut = cutText(text, 101);
    expect(cut.text).toMatch(/^(é)+\n\[\.\.\. \d+ bytes elided from the trajectory: see "elided" \.\.\.\]\n(é)+$/);
    const [head, tail] = cut.text.split(/\n\[[^\]]*\]\n/);
    expect(bytes(head!) + bytes(tail!) + cut.elidedBytes).toBe(2000);
    expect(bytes(head!) + bytes(tail!)).toBeLessThanOrEqual(101);
  });
});

describe("fitLine", () => {
  test("a line that fits is written as it is", () => {
    const line = { type: "turn", turn: 1, text: "x".repeat(1000) };
    expect(fitLine(line, 2000)).toBe(JSON.stringify(line));
  });

  test("long strings share the room; each cut one is listed with its bytes, elided bytes and sha256", () => {
    const big = "b".repeat(100_000);
    const mid = "m".repeat(5_000);
    const line = {
      type: "turn",
      turn: 3,
      wire: { body: big, content_type: "application/json" },
      action: { command: mid },
    };
    const text = fitLine(line, 20_000);
    expect(bytes(text)).toBeLessThanOrEqual(20_000);
    const out = JSON.parse(text) as typeof line & { elided: Elision[] };
    expect(out.wire.content_type).toBe("application/json");
    expect(out.action.command).toBe(mid); // under its share: whole
    expect(out.elided).toEqual([
      { field: "wire.body", bytes: 100_000, elided_bytes: expect.any(Number), sha256: sha256(big) },
    ]);
    expect(out.wire.body.length).toBeGreaterThan(10_000); // the room is used, not thrown away
    expect(bytes(out.wire.body.replace(/\n\[[^\]]*\]\n/, "")) + out.elided[0]!.elided_bytes).toBe(100_000);
  });

  test("strings full of escapes (serialised six times their bytes) still fit", () => {
    const ctl = "\u0001".repeat(50_000);
    const text = fitLine({ type: "turn", turn: 1, s: ctl, t: "y".repeat(50_000) }, 10_000);
    expect(bytes(text)).toBeLessThanOrEqual(10_000);
    expect((JSON.parse(text) as { elided: Elision[] }).elided.map((e) => e.sha256)).toContain(sha256(ctl));
  });

  test("with no room, a line of many long participant strings shrinks to its skeleton within the per-line reserve", () => {
    const long = (c: string): string => c.repeat(200_000);
    const line = {
      type: "turn",
      turn: 250,
      sent_at: new Date().toISOString(),
      replied_at: new Date().toISOString(),
      sent: { message_id: long("a"), context_id: long("b"), task_id: long("c"), text: long("d") },
      reply: { state: "completed", context_id: long("e"), task_id: long("f"), message_id: long("g") },
      wire: {
        http_status: 200,
        content_type: long("h"),
        content_encoding: long("i"),
        bytes: 1,
        sha256: "0".repeat(64),
      },
      action: { type: "exec", command: long("j"), timeoutS: 60, submitOnSentinel: false, dialect: "agentswe" },
      command: { exit_code: 0, stdout: { text: long("k"), elided_chars: 1, bytes: 1, sha256: "1".repeat(64) } },
    };
    const text = fitLine(line, 1);
    expect(bytes(text)).toBeLessThanOrEqual(LINE_RESERVE_BYTES);
    const out = JSON.parse(text) as Record<string, unknown>;
    expect(out["line_elided"]).toEqual({ bytes: bytes(JSON.stringify(line)), sha256: sha256(JSON.stringify(line)) });
    expect(out).toMatchObject({ type: "turn", turn: 250, action: { type: "exec", command: "", timeoutS: 60 } });
    expect(KEPT_WHOLE_BYTES).toBeLessThan(100);
  });
});
