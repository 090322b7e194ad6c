/**
 * HTTP+JSON (REST) error responses as RFC 9457 Problem Details, the form A2A
 * 1.0 §11.6 (the 1.0 RC text, which the A2A TCK checks against) gives them:
 * `Content-Type: application/problem+json`, `type` the URI of §5.4's mapping
 * table for an A2A error, `status` the HTTP status of that table, `title`,
 * `detail` the message. The SDK (and our own adapter) write REST errors as a
 * google.rpc.Status-style `{error:{code,status,message,details}}` with an
 * ErrorInfo `reason` naming the A2A error; this module turns such a body into
 * the problem object. The original status object stays beside it as the
 * extension member `error` (RFC 9457 §3.2 lets consumers ignore members they
 * do not know): SDK clients read errors from `error`, and the released A2A
 * 1.0.0 text moved §11.6 back to that AIP-193 shape, so both readers get a
 * typed error. Protocol logic only; the Express adapter applies it.
 */
import { STATUS_CODES } from "node:http";

/** RFC 9457 §3: the problem object's media type. */
export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** RFC 9457 §4.2.1: the type of a problem with no further semantics than its HTTP status. */
export const ABOUT_BLANK = "about:blank";

/** One row of A2A 1.0 §5.4 "Error Code Mappings" (HTTP Status, HTTP Type URI). */
interface A2AErrorMapping {
  status: number;
  type: string;
  title: string;
}

/**
 * A2A 1.0 §5.4, keyed by the ErrorInfo reason (§10.6: the A2A error type in
 * UPPER_SNAKE_CASE without the "Error" suffix). HTTP statuses as released in
 * 1.0.1, which maps them as google.rpc.Code does (the RC had 409 for
 * TaskNotCancelable, 415 for ContentTypeNotSupported, 502 for
 * InvalidAgentResponse; 1.0.1 has 400, 400, 500, as the SDK writes them).
 * The type URIs are the RC's (the released text has none; the ErrorInfo
 * `reason` in the `error` member names the error there).
 */
export const A2A_ERROR_MAPPINGS: Readonly<Record<string, A2AErrorMapping>> = Object.freeze({
  TASK_NOT_FOUND: {
    status: 404,
    type: "https://a2a-protocol.org/errors/task-not-found",
    title: "Task Not Found",
  },
  TASK_NOT_CANCELABLE: {
    status: 400,
    type: "https://a2a-protocol.org/errors/task-not-cancelable",
    title: "Task Not Cancelable",
  },
  PUSH_NOTIFICATION_NOT_SUPPORTED: {
    status: 400,
    type: "https://a2a-protocol.org/errors/push-notification-not-supported",
    title: "Push Notification Not Supported",
  },
  UNSUPPORTED_OPERATION: {
    status: 400,
    type: "https://a2a-protocol.org/errors/unsupported-operation",
    title: "Unsupported Operation",
  },
  CONTENT_TYPE_NOT_SUPPORTED: {
    status: 400,
    type: "https://a2a-protocol.org/errors/content-type-not-supported",
    title: "Content Type Not Supported",
  },
  INVALID_AGENT_RESPONSE: {
    status: 500,
    type: "https://a2a-protocol.org/errors/invalid-agent-response",
    title: "Invalid Agent Response",
  },
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: {
    status: 400,
    type: "https://a2a-protocol.org/errors/extended-agent-card-not-configured",
    title: "Extended Agent Card Not Configured",
  },
  EXTENSION_SUPPORT_REQUIRED: {
    status: 400,
    type: "https://a2a-protocol.org/errors/extension-support-required",
    title: "Extension Support Required",
  },
  VERSION_NOT_SUPPORTED: {
    status: 400,
    type: "https://a2a-protocol.org/errors/version-not-supported",
    title: "Version Not Supported",
  },
});

/** An RFC 9457 problem object (with the original status object as the `error` extension member). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  error?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The A2A error a google.rpc.Status-style body names through an ErrorInfo `reason`, if any. */
function a2aMapping(status: Record<string, unknown>): A2AErrorMapping | undefined {
  const details = status["details"];
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    const reason = isRecord(d) ? d["reason"] : undefined;
    if (typeof reason === "string" && Object.hasOwn(A2A_ERROR_MAPPINGS, reason)) return A2A_ERROR_MAPPINGS[reason];
  }
  return undefined;
}

/**
 * The problem object and HTTP status for a REST error answered with
 * `httpStatus` and `body`. An A2A error takes §5.4's status and type; any other
 * error (bad parameters, no route, authentication, size) keeps its status with
 * type `about:blank` and the status phrase as title (RFC 9457 §4.2.1). A body
 * that is already a problem object is returned as it is.
 */
export function toProblemDetails(httpStatus: number, body: unknown): { status: number; problem: ProblemDetails } {
  if (isRecord(body) && typeof body["type"] === "string" && typeof body["status"] === "number") {
    return { status: body["status"], problem: body as unknown as ProblemDetails };
  }
  const error = isRecord(body) && isRecord(body["error"]) ? body["error"] : undefined;
  const message = error && typeof error["message"] === "string" ? error["message"] : undefined;
  const mapping = error ? a2aMapping(error) : undefined;
  const status = mapping?.status ?? httpStatus;
  const problem: ProblemDetails = {
    type: mapping?.type ?? ABOUT_BLANK,
    title: mapping?.title ?? STATUS_CODES[status] ?? "Error",
    status,
    detail: message ?? STATUS_CODES[status] ?? "Error",
  };
  if (error) problem.error = { ...error, code: status };
  return { status, problem };
}
