/**
 * Listen first, then build the app: the agent card must advertise the real
 * port (port 0 in tests picks a free one), so the app factory receives the
 * bound address. Requests that arrive while the app is still being built
 * (an orchestrator polling the card during start-up) are held and served
 * once it is ready, never dropped.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { explainListenError } from "./port-in-use.js";

export interface ServedApp {
  server: Server;
  /** Bound host and port. */
  host: string;
  port: number;
  /** Stop accepting connections and drop idle/keep-alive sockets. */
  close(): Promise<void>;
}

/**
 * Bind `host:port` (port 0 = any free port), then call `makeApp(port)` and
 * serve it. Resolves once listening with the app in place; rejects (and
 * closes the server) when binding or `makeApp` fails. Requests that raced
 * the build get HTTP 503 in that case. A port in use rejects with a
 * PortInUseError naming its holder and `portFlag`, the flag that moves us.
 */
export async function serveApp(
  host: string,
  port: number,
  makeApp: (boundPort: number) => RequestListener | Promise<RequestListener>,
  portFlag = "--port",
): Promise<ServedApp> {
  let app: RequestListener | null = null;
  let failed = false;
  const held: Array<[IncomingMessage, ServerResponse]> = [];
  const server = createServer((req, res) => {
    if (app) app(req, res);
    else if (failed) unavailable(res);
    else held.push([req, res]);
  });
  await new Promise<void>((resolve, reject) => {
    const fail = (err: Error): void => reject(explainListenError(err, host, port, portFlag));
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      resolve();
    });
  });
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  const bound = (server.address() as AddressInfo).port;
  try {
    app = await makeApp(bound);
  } catch (err) {
    failed = true;
    for (const [, res] of held.splice(0)) unavailable(res);
    await close();
    throw err;
  }
  for (const [req, res] of held.splice(0)) app(req, res);
  return { server, host, port: bound, close };
}

function unavailable(res: ServerResponse): void {
  res.writeHead(503, { "content-type": "text/plain", connection: "close" }).end("agent failed to start\n");
}
