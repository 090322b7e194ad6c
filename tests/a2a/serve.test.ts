import { afterEach, describe, expect, it } from "vitest";
import type { RequestListener } from "node:http";
import { serveApp, type ServedApp } from "../../src/a2a/serve.js";

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

/** Wait until `makeApp` has been called (the server is then listening). */
async function listening(port: { value: number }): Promise<number> {
  for (let i = 0; i < 500 && port.value === 0; i++) await new Promise((r) => setTimeout(r, 2));
  if (port.value === 0) throw new Error("makeApp was never called");
  return port.value;
}

describe("serveApp", () => {
  it("holds a request that arrives while the app is being built and serves it once ready", async () => {
    const gate = deferred<RequestListener>();
    const port = { value: 0 };
    const serving = serveApp("127.0.0.1", 0, (p) => {
      port.value = p;
      return gate.promise;
    });
    const url = `http://127.0.0.1:${await listening(port)}/card`;
    const early = fetch(url, { signal: AbortSignal.timeout(5000) });
    await new Promise((r) => setTimeout(r, 50)); // the request is now queued on the server
    gate.resolve((req, res) => res.end(`served ${req.url}`));
    opened.push(await serving);
    const r = await early;
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("served /card");
  });

  it("answers 503 to held requests, closes the port and rejects when the app cannot be built", async () => {
    const gate = deferred<RequestListener>();
    const port = { value: 0 };
    const serving = serveApp("127.0.0.1", 0, (p) => {
      port.value = p;
      return gate.promise;
    });
    const bound = await listening(port);
    const early = fetch(`http://127.0.0.1:${bound}/`, { signal: AbortSignal.timeout(5000) });
    await new Promise((r) => setTimeout(r, 50));
    gate.reject(new Error("card file missing"));
    await expect(serving).rejects.toThrow("card file missing");
    expect((await early).status).toBe(503);
    await expect(fetch(`http://127.0.0.1:${bound}/`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
  });

  it("reports the bound port to the app factory and serves the app", async () => {
    const s = await serveApp("127.0.0.1", 0, (p) => (_req, res) => res.end(String(p)));
    opened.push(s);
    const r = await fetch(`http://127.0.0.1:${s.port}/`);
    expect(await r.text()).toBe(String(s.port));
  });
});
