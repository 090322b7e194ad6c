import { describe, expect, test } from "vitest";
import { envelopeProblem, invalidRequestResponse } from "../../../src/a2a/server/jsonrpc-envelope.js";

describe("envelopeProblem: JSON-RPC 2.0 §4 Request objects", () => {
  test("accepts a request with a string, number or null id, with or without params", () => {
    for (const body of [
      { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } },
      { jsonrpc: "2.0", id: "a", method: "SendMessage", params: {} },
      { jsonrpc: "2.0", id: null, method: "message/send", params: [] },
      { jsonrpc: "2.0", method: "GetExtendedAgentCard" },
    ]) {
      expect(envelopeProblem(body), JSON.stringify(body)).toBeUndefined();
    }
  });

  test("names what is wrong with an invalid one", () => {
    expect(envelopeProblem({ jsonrpc: "aaa", method: "SendMessage", params: {} })).toMatch(
      /"jsonrpc" must be exactly "2.0", got "aaa"/,
    );
    expect(envelopeProblem({ jsonrpc: "1.0", method: "SendMessage" })).toMatch(/"jsonrpc"/);
    expect(envelopeProblem({ method: "SendMessage" })).toMatch(/"jsonrpc"/);
    expect(envelopeProblem({ jsonrpc: "2.0", params: {} })).toMatch(/"method" must be a non-empty string/);
    expect(envelopeProblem({ jsonrpc: "2.0", method: 5 })).toMatch(/"method"/);
    expect(envelopeProblem({ jsonrpc: "2.0", method: "GetTask", id: { bad: "type" } })).toMatch(/"id"/);
    expect(envelopeProblem({ jsonrpc: "2.0", method: "GetTask", id: true })).toMatch(/"id"/);
    expect(envelopeProblem({ jsonrpc: "2.0", method: "GetTask", params: null })).toMatch(/"params"/);
    expect(envelopeProblem({ jsonrpc: "2.0", method: "GetTask", params: "x" })).toMatch(/"params"/);
    expect(envelopeProblem([{ jsonrpc: "2.0", method: "GetTask" }])).toMatch(/batch/);
    expect(envelopeProblem("GetTask")).toMatch(/Request object/);
  });
});

describe("invalidRequestResponse", () => {
  test("is -32600 and echoes only a valid id (JSON-RPC 2.0 §5)", () => {
    expect(invalidRequestResponse({ jsonrpc: "1.0", id: 7 }, "p")).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32600, message: "Request payload validation error: p" },
    });
    expect(invalidRequestResponse({ id: { bad: "type" } }, "p").id).toBeNull();
    expect(invalidRequestResponse([], "p").id).toBeNull();
  });
});
