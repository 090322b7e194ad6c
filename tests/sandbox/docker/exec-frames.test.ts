import { describe, expect, test } from "vitest";
import { FrameDemuxer, type FrameStream } from "../../../src/sandbox/docker/exec-frames.js";
import { frame } from "../../support/engine-frames.js";

function demux(chunks: Buffer[]) {
  const got: Record<FrameStream, string> = { stdout: "", stderr: "" };
  const d = new FrameDemuxer((s, b) => (got[s] += b.toString()));
  for (const c of chunks) d.push(c);
  return { got, d };
}

describe("FrameDemuxer", () => {
  const stream = Buffer.concat([frame(1, "out1\n"), frame(2, "err\n"), frame(1, ""), frame(1, "out2")]);

  test("keeps stdout and stderr apart, each in order", () => {
    const { got, d } = demux([stream]);
    expect(got).toEqual({ stdout: "out1\nout2", stderr: "err\n" });
    expect(d.atBoundary).toBe(true);
  });

  test("frames cut anywhere across chunks, even one byte at a time, come out the same", () => {
    for (const size of [1, 3, 7, 8, 9]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < stream.length; i += size) chunks.push(stream.subarray(i, i + size));
      expect(demux(chunks).got).toEqual({ stdout: "out1\nout2", stderr: "err\n" });
    }
  });

  test("a frame cut short is not at a boundary; an unknown stream type stops the parse", () => {
    expect(demux([frame(1, "abcdef").subarray(0, 10)]).d.atBoundary).toBe(false);
    const { got, d } = demux([Buffer.concat([frame(1, "ok"), Buffer.from("HTTP/1.1 200 OK\r\n")])]);
    expect(got.stdout).toBe("ok");
    expect(d.malformed).toMatch(/unknown stream type/);
  });
});
