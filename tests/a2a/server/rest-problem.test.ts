import { describe, expect, test } from "vitest";
import { A2A_ERROR_MAPPINGS, toProblemDetails } from "../../../src/a2a/server/rest-problem.js";

/** A google.rpc.Status-style body as the SDK's REST handler writes it. */
function status(code: number, name: string, message: string, reason?: string): unknown {
  const details = reason
    ? [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "a2a-protocol.org" }]
    : [];
  return { error: { code, status: name, message, details } };
}

describe("toProblemDetails (A2A 1.0 §11.6, §5.4)", () => {
  test("an A2A error takes §5.4's status (as released in 1.0.1) and type URI, whatever status the SDK chose", () => {
    const { status: s, problem } = toProblemDetails(
      409,
      status(400, "FAILED_PRECONDITION", "Task t is completed", "TASK_NOT_CANCELABLE"),
    );
    expect(s).toBe(400);
    expect(problem).toMatchObject({
      type: "https://a2a-protocol.org/errors/task-not-cancelable",
      title: "Task Not Cancelable",
      status: 400,
      detail: "Task t is completed",
      error: { code: 400, status: "FAILED_PRECONDITION" },
    });
    expect(toProblemDetails(415, status(415, "INVALID_ARGUMENT", "m", "CONTENT_TYPE_NOT_SUPPORTED")).status).toBe(400);
    expect(toProblemDetails(502, status(502, "INTERNAL", "m", "INVALID_AGENT_RESPONSE")).status).toBe(500);
    expect(toProblemDetails(404, status(404, "NOT_FOUND", "m", "TASK_NOT_FOUND")).problem.type).toBe(
      "https://a2a-protocol.org/errors/task-not-found",
    );
  });

  test("§5.4's table: nine A2A errors, each with its own https://a2a-protocol.org/errors/ URI", () => {
    const rows = Object.values(A2A_ERROR_MAPPINGS);
    expect(rows).toHaveLength(9);
    expect(new Set(rows.map((r) => r.type)).size).toBe(9);
    for (const r of rows) expect(r.type).toMatch(/^https:\/\/a2a-protocol\.org\/errors\/[a-z-]+$/);
  });

  test("any other error keeps its status, with type about:blank and the status phrase as title (RFC 9457 §4.2.1)", () => {
    const { status: s, problem } = toProblemDetails(
      400,
      status(400, "INVALID_ARGUMENT", "historyLength must be non-negative", "INVALID_PARAMS"),
    );
    expect(s).toBe(400);
    expect(problem).toMatchObject({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: "historyLength must be non-negative",
    });
    expect(toProblemDetails(401, status(401, "UNAUTHENTICATED", "send a token")).problem).toMatchObject({
      type: "about:blank",
      title: "Unauthorized",
      status: 401,
    });
    expect(toProblemDetails(500, { unexpected: true }).problem).toEqual({
      type: "about:blank",
      title: "Internal Server Error",
      status: 500,
      detail: "Internal Server Error",
    });
  });

  test("a body that is already a problem object passes unchanged", () => {
    const p = { type: "about:blank", title: "Not Found", status: 404, detail: "x" };
    expect(toProblemDetails(404, p)).toEqual({ status: 404, problem: p });
  });
});
