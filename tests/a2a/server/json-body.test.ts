import { describe, expect, it } from "vitest";
import { Readable } from "node:stream";
import type { IncomingMessage } from "node:http";
import { BodyReadError, isPlainJsonBody, parseStrict, readJsonBody } from "../../../src/a2a/server/json-body.js";

/** A request stream with these headers and body chunks. */
function req(headers: Record<string, string>, ...chunks: string[]): IncomingMessage {
  const r = Readable.from(chunks.map((c) => Buffer.from(c))) as unknown as IncomingMessage;
  (r as { headers: Record<string, string> }).headers = headers;
  return r;
}

describe("json-body (the JSON-RPC body reader's plain case)", () => {
  it("takes only uncompressed application/json bodies, leaving the rest to body-parser", () => {
    expect(isPlainJsonBody(req({ "content-type": "application/json", "content-length": "2" }))).toBe(true);
    expect(isPlainJsonBody(req({ "content-type": "Application/JSON; charset=utf-8", "content-length": "2" }))).toBe(
      true,
    );
    expect(isPlainJsonBody(req({ "content-type": "application/json; charset=latin1", "content-length": "2" }))).toBe(
      false,
    );
    expect(isPlainJsonBody(req({ "content-type": "text/plain", "content-length": "2" }))).toBe(false);
    expect(
      isPlainJsonBody(req({ "content-type": "application/json", "content-encoding": "gzip", "content-length": "2" })),
    ).toBe(false);
    expect(isPlainJsonBody(req({ "content-type": "application/json", "content-length": "0" }))).toBe(false);
    expect(isPlainJsonBody(req({ "content-type": "application/json", "transfer-encoding": "chunked" }))).toBe(true);
  });

  it("parses as body-parser's strict JSON: {} for an empty body, objects and arrays only", () => {
    expect(parseStrict("")).toEqual({});
    expect(parseStrict(' \n{"a":1}')).toEqual({ a: 1 });
    expect(parseStrict("[1]")).toEqual([1]);
    expect(() => parseStrict('"x"')).toThrow(SyntaxError);
    expect(() => parseStrict("{bad")).toThrow(SyntaxError);
  });

  it("reads a chunked body, drops a BOM, and refuses a body over the limit or short of its Content-Length", async () => {
    const body = '\ufeff{"jsonrpc":"2.0","id":1}';
    await expect(
      readJsonBody(req({ "content-length": String(Buffer.byteLength(body)) }, body.slice(0, 5), body.slice(5)), 100),
    ).resolves.toEqual({ jsonrpc: "2.0", id: 1 });
    await expect(readJsonBody(req({ "content-length": "500" }, "{}"), 100)).rejects.toMatchObject({
      type: "entity.too.large",
      status: 413,
    });
    await expect(readJsonBody(req({}, "{", '"a":"', "x".repeat(200), '"}'), 100)).rejects.toBeInstanceOf(BodyReadError);
    await expect(readJsonBody(req({ "content-length": "9" }, "{}"), 100)).rejects.toMatchObject({
      type: "request.size.invalid",
    });
  });
});
