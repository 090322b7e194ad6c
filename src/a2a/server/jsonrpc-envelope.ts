/**
 * The JSON-RPC request envelope, checked before the SDK sees it. Protocol
 * logic only; the Express adapter applies it.
 *
 * Envelope: a body that is not a JSON-RPC 2.0 Request object (JSON-RPC 2.0 §4:
 * `jsonrpc` exactly "2.0", `method` a string, `id` a string, number or null,
 * `params` a structured value) is -32600 InvalidRequestError (A2A 1.0 §9.5:
 * "The JSON sent is not a valid Request object"). The SDK's 1.0 handler
 * answers these -32602 (it raises its one "malformed" error, which maps to
 * Invalid params); its 0.3 handler already answers -32600, so one check here
 * serves both wires alike.
 */

/** JSON-RPC 2.0 §5.1: -32600 Invalid Request (A2A 1.0 §9.5 InvalidRequestError). */
export const INVALID_REQUEST = -32600;

/** A JSON-RPC error response object. */
export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id: string | number | null;
  error: { code: number; message: string };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isValidId(id: unknown): id is string | number | null {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** Why `body` is not a JSON-RPC 2.0 Request object, or undefined when it is one. */
export function envelopeProblem(body: unknown): string | undefined {
  if (Array.isArray(body)) return "batch requests are not supported; send one Request object";
  if (!isRecord(body)) return "the body must be a JSON-RPC Request object";
  if (body["jsonrpc"] !== "2.0") return `"jsonrpc" must be exactly "2.0", got ${JSON.stringify(body["jsonrpc"])}`;
  if (typeof body["method"] !== "string" || body["method"] === "") return '"method" must be a non-empty string';
  if ("id" in body && !isValidId(body["id"])) return '"id" must be a string, a number or null';
  // A Structured value when present (JSON-RPC 2.0 §4.2); whether it fits the method is -32602's business.
  if ("params" in body && (body["params"] === null || typeof body["params"] !== "object"))
    return '"params" must be an object when present';
  return undefined;
}

/** The -32600 answer to an invalid envelope; the id is echoed only when it is a valid one (JSON-RPC 2.0 §5). */
export function invalidRequestResponse(body: unknown, problem: string): JsonRpcErrorResponse {
  const id = isRecord(body) && isValidId(body["id"]) ? body["id"] : null;
  return {
    jsonrpc: "2.0",
    id,
    error: { code: INVALID_REQUEST, message: `Request payload validation error: ${problem}` },
  };
}
