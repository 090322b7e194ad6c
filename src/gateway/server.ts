/**
 * The gateway's HTTP server: node:http in front of {@link ModelGateway}. A
 * factory; the caller listens (and closes). Bodies over `maxBodyBytes` are
 * refused with 413 before the gateway sees them.
 */
import { createServer, type Server } from "node:http";
import type { Logger } from "../util/logger.js";
import { errorMessage } from "../util/errors.js";
import { GatewayError } from "./errors.js";
import type { ModelGateway } from "./gateway.js";

/** Largest call body, bytes: a long chat history with room to spare. */
export const DEFAULT_GATEWAY_MAX_BODY_BYTES = 16 * 1024 * 1024;

export function createGatewayServer(gateway: ModelGateway, o: { logger: Logger; maxBodyBytes?: number }): Server {
  const limit = o.maxBodyBytes ?? DEFAULT_GATEWAY_MAX_BODY_BYTES;
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const answer = (status: number, body: Buffer, contentType: string): void => {
      res.writeHead(status, { "content-type": contentType, "content-length": body.length });
      res.end(body);
    };
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        const e = new GatewayError("E_GATEWAY_BODY_TOO_LARGE", `the body exceeds ${limit} bytes`);
        answer(e.httpStatus, Buffer.from(JSON.stringify(e.body())), "application/json");
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (refused) return;
      void gateway
        .handle({
          method: req.method ?? "GET",
          path: req.url ?? "/",
          authorization: req.headers.authorization,
          body: Buffer.concat(chunks),
        })
        .then((r) => answer(r.status, r.body, r.contentType))
        .catch((err: unknown) => {
          o.logger.error({ err: errorMessage(err) }, "gateway answer failed");
          res.destroy();
        });
    });
    req.on("error", () => res.destroy());
  });
}
