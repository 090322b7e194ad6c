import { describe, expect, test } from "vitest";
import { PassThrough } from "node:stream";
import { attachCapture, checkCapture } from "../../src/process/capture.js";

const stream = () => new PassThrough();

describe("captures", () => {
  test("a tail keeps the last bytes and counts every byte written", async () => {
    const s = stream();
    const sink = attachCapture([s], { tail: 5 }, () => {});
    s.write("hello ");
    s.end("world");
    await sink.done;
    expect(sink.text()).toBe("world");
    expect(sink.bytes()).toBe(11);
  });

  test("a stopWhenFull tail calls for a stop once more than the cap was written, not before", async () => {
    const s = stream();
    let overflows = 0;
    const sink = attachCapture([s], { tail: 4, stopWhenFull: true }, () => overflows++);
    s.write("abcd");
    await new Promise((r) => setImmediate(r));
    expect(overflows).toBe(0);
    s.end("e");
    await sink.done;
    expect(overflows).toBe(1);
  });

  test("lines from two merged streams are never glued together, and each final line is flushed", async () => {
    const out = stream();
    const err = stream();
    const lines: string[] = [];
    const sink = attachCapture([out, err], { lines: (l) => lines.push(l) }, () => {});
    out.write("par");
    err.write("stderr line\n");
    out.write("tial\r\n");
    err.end("last err");
    out.end("last out");
    await sink.done;
    expect(lines.sort()).toEqual(["last err", "last out", "partial", "stderr line"]);
    expect(sink.text()).toBe("");
    expect(sink.bytes()).toBe("partial\r\nlast out".length + "stderr line\nlast err".length);
  });

  test("all keeps everything from both streams in arrival order", async () => {
    const out = stream();
    const err = stream();
    const sink = attachCapture([out, err], { all: true }, () => {});
    out.write("1");
    await new Promise((r) => setImmediate(r));
    err.write("2");
    await new Promise((r) => setImmediate(r));
    out.end("3");
    err.end();
    await sink.done;
    expect(sink.text()).toBe("123");
  });

  test("pipe and ignore read nothing and are done at once", async () => {
    const s = stream();
    for (const mode of ["pipe", "ignore"] as const) {
      const sink = attachCapture([s], mode, () => {});
      await sink.done;
      expect([sink.text(), sink.bytes()]).toEqual(["", 0]);
    }
    expect(s.listenerCount("data")).toBe(0);
  });

  test("a capture that cannot work is refused, naming the option", () => {
    expect(() => checkCapture("stdout", { tail: 0 })).toThrow(/stdout.tail must be a positive integer/);
    expect(() => checkCapture("stderr", { lines: () => {}, maxLine: 1.5 })).toThrow(/stderr.maxLine/);
    expect(() => checkCapture("stderr", "stdout")).not.toThrow();
  });
});
