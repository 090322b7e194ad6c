import { afterEach, describe, expect, it } from "vitest";
import diagnostics from "node:diagnostics_channel";
import type { IncomingMessage, RequestListener } from "node:http";
import { serveApp, type ServedApp } from "../../../src/a2a/server/serve.js";

const opened: ServedApp[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

/** A promise with its resolve/reject exposed. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Resolves with the request to `url` path once the server has taken it in (its request listener has run). */
function requestTakenIn(path: string): Promise<void> {
  return new Promise((resolve) => {
    const onStart = (message: unknown): void => {
      if ((message as { request: IncomingMessage }).request.url !== path) return;
      diagnostics.unsubscribe("http.server.request.start", onStart);
      // The channel publishes just before the server emits "request": let that listener run first.
      setImmediate(resolve);
    };
    diagnostics.subscribe("http.server.request.start", onStart);
  });
}

describe("serveApp", () => {
  it("holds a request that arrives while the app is being built and serves it once ready", async () => {
    const gate = deferred<RequestListener>();
    const port = deferred<number>();
    const serving = serveApp("127.0.0.1", 0, (p) => {
      port.resolve(p);
      return gate.promise;
    });
    const url = `http://127.0.0.1:${await port.promise}/card`;
    const held = requestTakenIn("/card");
    const early = fetch(url);
    await held; // the request is now held by the server, the app not yet built
    gate.resolve((req, res) => res.end(`served ${req.url}`));
    opened.push(await serving);
    const r = await early;
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("served /card");
  });

  it("answers 503 to held requests, closes the port and rejects when the app cannot be built", async () => {
    const gate = deferred<RequestListener>();
    const port = deferred<number>();
    const serving = serveApp("127.0.0.1", 0, (p) => {
      port.resolve(p);
      return gate.promise;
    });
    const bound = await port.promise;
    const held = requestTakenIn("/held");
    const early = fetch(`http://127.0.0.1:${bound}/held`);
    await held;
    gate.reject(new Error("card file missing"));
    await expect(serving).rejects.toThrow("card file missing");
    expect((await early).status).toBe(503);
    // The port is closed: a new connection is refused (no wait involved).
    await expect(fetch(`http://127.0.0.1:${bound}/`)).rejects.toThrow();
  });

  it("reports the bound port to the app factory and serves the app", async () => {
    const s = await serveApp("127.0.0.1", 0, (p) => (_req, res) => res.end(String(p)));
    opened.push(s);
    const r = await fetch(`http://127.0.0.1:${s.port}/`);
    expect(await r.text()).toBe(String(s.port));
  });
});
