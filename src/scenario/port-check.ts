/** Whether a TCP port can be bound (a port test only; never used to decide what to kill). */
import { createServer } from "node:net";

/** Resolves true when `host:port` is free to listen on. */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => resolve(true));
    });
  });
}
