/**
 * Listen first, then build the app: the agent card must advertise the real
 * port (port 0 in tests picks a free one), so the app factory receives the
 * bound address.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

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
 * serve it. Resolves once listening.
 */
export async function serveApp(
  host: string,
  port: number,
  makeApp: (boundPort: number) => RequestListener | Promise<RequestListener>,
): Promise<ServedApp> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const app = await makeApp(bound);
  server.on("request", app);
  return {
    server,
    host,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
