/**
 * The JSON-RPC endpoint's unary calls (every method whose answer is one JSON
 * object: `message/send`, `tasks/get`, `SendMessage`, `GetTask`, ...) handed
 * straight to the SDK's transport handlers — `JsonRpcTransportHandler` for the
 * 1.0 wire, `LegacyJsonRpcTransportHandler` for 0.3 — with the call context,
 * version check and error mapping the SDK's Express `jsonRpcHandler` applies,
 * minus the Express router that handler is: a second router, its content-type
 * guard and `express.json` on a body already read, per request (a visible
 * share of a small call's cost, docs/performance-serving.md). The transport
 * handlers stay the protocol implementation (method dispatch, params checks,
 * 0.3 ↔ 1.0 conversion, error codes); this module is transport glue only.
 *
 * What still goes to the SDK's handler (`next()`): the streaming methods
 * (`message/stream`, `tasks/resubscribe`, `SendStreamingMessage`,
 * `SubscribeToTask`, whose SSE framing stays the SDK's) and a request without a
 * parsed body (another content type: the SDK's content-type guard answers it).
 * tests/a2a/server/jsonrpc-unary.test.ts holds both paths' answers equal, byte for byte.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER, type AgentCard } from "@a2a-js/sdk";
import { A2A_ERROR_CODE } from "@a2a-js/sdk/errors";
import {
  JsonRpcTransportHandler,
  defaultServerCallContextBuilder,
  validateVersion,
  type A2ARequestHandler,
  type User,
} from "@a2a-js/sdk/server";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import {
  A2A_LEGACY_PROTOCOL_VERSION,
  LEGACY_HTTP_EXTENSION_HEADER,
  LEGACY_METHOD_MESSAGE_STREAM,
  LEGACY_METHOD_TASKS_RESUBSCRIBE,
} from "@a2a-js/sdk/compat/v0_3";
import type { Logger } from "../../util/logger.js";
import { errorMessage } from "../../util/errors.js";
import { headerOf, writeJson } from "./json-response.js";

/** Methods whose answer is an SSE stream, on either wire: left to the SDK's handler. */
export const STREAMING_METHODS: ReadonlySet<string> = new Set([
  LEGACY_METHOD_MESSAGE_STREAM,
  LEGACY_METHOD_TASKS_RESUBSCRIBE,
  "SendStreamingMessage",
  "SubscribeToTask",
]);

export interface UnaryJsonRpcOptions {
  requestHandler: A2ARequestHandler;
  /** Who is calling (e.g. the SDK's `UserBuilder.noAuthentication`); it reads the request's headers only. */
  userBuilder: (req: IncomingMessage) => Promise<User>;
  logger: Logger;
}

/**
 * Answers one parsed unary call on `res`, as the SDK's `jsonRpcHandler({ legacyCompat: { enabled: true } })`
 * would (its POST route, non-streaming branch: server/express/json_rpc_handler.ts). Never rejects: an error
 * becomes the JSON-RPC error answer. The caller has checked the envelope and that the method is not a
 * streaming one ({@link isUnaryCall}), and has set the request's `A2A-Version` header the SDK reads.
 */
export type UnaryAnswer = (req: IncomingMessage, res: ServerResponse, body: { id?: unknown }) => Promise<void>;

export function unaryAnswer(options: UnaryJsonRpcOptions): UnaryAnswer {
  const h: Handlers = {
    ...options,
    v1: new JsonRpcTransportHandler(options.requestHandler),
    legacy: new LegacyJsonRpcTransportHandler(options.requestHandler),
  };
  return (req, res, body) => answer(req, res, body, h);
}

/** Whether a parsed body is a call this path answers: an object naming no streaming method. */
export function isUnaryCall(body: unknown): body is { method?: unknown; id?: unknown } {
  return (
    body !== undefined &&
    body !== null &&
    typeof body === "object" &&
    !isStreaming((body as { method?: unknown }).method)
  );
}

/**
 * Express middleware for `POST /` after the body is parsed: answers unary calls
 * as {@link unaryAnswer}, passes everything else on (see the module note).
 */
export function unaryJsonRpc(answerCall: UnaryAnswer): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const body: unknown = req.body;
    if (!isUnaryCall(body)) return next();
    void answerCall(req, res, body);
  };
}

function isStreaming(method: unknown): boolean {
  return typeof method === "string" && STREAMING_METHODS.has(method);
}

interface Handlers extends UnaryJsonRpcOptions {
  v1: JsonRpcTransportHandler;
  legacy: LegacyJsonRpcTransportHandler;
}

async function answer(req: IncomingMessage, res: ServerResponse, body: { id?: unknown }, h: Handlers): Promise<void> {
  const versionHeader = headerOf(req, A2A_VERSION_HEADER);
  const useLegacy = (versionHeader || A2A_LEGACY_PROTOCOL_VERSION) === A2A_LEGACY_PROTOCOL_VERSION;
  try {
    const user = await h.userBuilder(req);
    const extensionsHeader = useLegacy
      ? (headerOf(req, LEGACY_HTTP_EXTENSION_HEADER) ?? headerOf(req, HTTP_EXTENSION_HEADER))
      : headerOf(req, HTTP_EXTENSION_HEADER);
    const context = defaultServerCallContextBuilder({
      extensions: Extensions.parseServiceParameter(extensionsHeader),
      user,
      headers: req.headers,
      ...(versionHeader ? { requestedVersion: versionHeader } : {}),
    });
    const card: AgentCard = await h.requestHandler.getAgentCard();
    validateVersion(context.requestedVersion, card, "JSONRPC");
    const response = useLegacy ? await h.legacy.handle(body, context) : await h.v1.handle(body, context);
    if (isAsyncIterable(response)) throw new Error("a unary JSON-RPC method answered with a stream");
    if (context.activatedExtensions)
      res.setHeader(
        useLegacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER,
        Array.from(context.activatedExtensions),
      );
    writeJson(res, 200, response);
  } catch (err) {
    h.logger.error({ err: errorMessage(err) }, "JSON-RPC call failed");
    const error = useLegacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err)
      : JsonRpcTransportHandler.mapToJSONRPCError(err);
    // As the SDK: a falsy id (0, "") is answered as null.
    const errorResponse = { jsonrpc: "2.0", id: body.id || null, error };
    if (!res.headersSent) writeJson(res, error.code === A2A_ERROR_CODE.INTERNAL_ERROR ? 500 : 200, errorResponse);
    else if (!res.writableEnded) res.end();
  }
}

function isAsyncIterable(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"
  );
}
