/**
 * The lean fetch of the participant's hot path answers as `fetch` does where the runner relies on it:
 * the request's method, headers and body arrive; the reply is a Response whose body is decoded
 * (gzip, brotli, several codings in a row); a redirect is never followed; the caller's signal ends the
 * request and a body being read with its reason; a refused connection is a `TypeError` whose cause is
 * the socket's error; the connection is kept for the next request.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { httpFetch } from "../../../src/a2a/client/http-fetch.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
});

async function serve(handler: Handler): Promise<{ url: string; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => handler(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  server.on("connection", (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`, sockets };
}

describe("httpFetch", () => {
  it("posts the method, headers and body, reads the JSON reply and keeps the connection", async () => {
    const seen: { method: unknown; type: unknown; version: unknown; body: string }[] = [];
    const s = await serve((req, body, res) => {
      seen.push({
        method: req.method,
        type: req.headers["content-type"],
        version: req.headers["a2a-version"],
        body,
      });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ echo: JSON.parse(body) }));
    });
    for (let i = 0; i < 2; i++) {
      const res = await httpFetch(s.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({ n: i, text: "héllo" }),
      });
      expect(res.ok).toBe(true);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(await res.json()).toEqual({ echo: { n: i, text: "héllo" } });
    }
    expect(seen).toEqual(
      [0, 1].map((n) => ({
        method: "POST",
        type: "application/json",
        version: "1.0",
        body: JSON.stringify({ n, text: "héllo" }),
      })),
    );
    expect(s.sockets.size).toBe(1);
  });

  it("decodes the body as fetch does: gzip, brotli, and gzip then brotli", async () => {
    const text = JSON.stringify({ a: "x".repeat(10_000) });
    const s = await serve((req, _body, res) => {
      if (req.url?.endsWith("gz")) res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync(text));
      else if (req.url?.endsWith("br")) res.writeHead(200, { "content-encoding": "br" }).end(brotliCompressSync(text));
      else res.writeHead(200, { "content-encoding": "gzip, br" }).end(brotliCompressSync(gzipSync(text)));
    });
    for (const path of ["gz", "br", "both"]) {
      const res = await httpFetch(`${s.url}/${path}`);
      expect(await res.text()).toBe(text);
    }
  });

  it("never follows a redirect: a network error, or the redirect itself when asked for manual", async () => {
    let followed = 0;
    const s = await serve((req, _body, res) => {
      if (req.url === "/elsewhere") followed++;
      res.writeHead(307, { location: "/elsewhere" }).end();
    });
    const err: unknown = await httpFetch(s.url, { method: "POST", body: "{}", redirect: "error" }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toBe("fetch failed");
    const manual = await httpFetch(s.url, { method: "POST", body: "{}", redirect: "manual" });
    expect(manual.status).toBe(307);
    expect(followed).toBe(0);
  });

  it("a 204 is a Response without a body", async () => {
    const s = await serve((_req, _body, res) => res.writeHead(204).end());
    const res = await httpFetch(s.url, { method: "POST", body: "{}" });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it("the signal ends a request waiting for its answer with the signal's reason", async () => {
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    const s = await serve(() => arrived()); // never answers
    const ac = new AbortController();
    const pending = httpFetch(s.url, { method: "POST", body: "{}", signal: ac.signal });
    await arrival;
    const reason = new Error("stop");
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);
    const already = AbortSignal.abort(new Error("already"));
    await expect(httpFetch(s.url, { signal: already })).rejects.toThrow("already");
  });

  it("the signal errors a body being read", async () => {
    const s = await serve((_req, _body, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"partial":'); // and never ends
    });
    const ac = new AbortController();
    const res = await httpFetch(s.url, { method: "POST", body: "{}", signal: ac.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('{"partial":');
    const rest = reader.read();
    ac.abort(new Error("stop"));
    await expect(rest).rejects.toThrow("stop");
  });

  it("a refused connection is a TypeError whose cause is the socket's error", async () => {
    // A port that was just listened on and closed: nothing accepts there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const err: unknown = await httpFetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TypeError);
    expect((err as { cause?: { code?: string } }).cause?.code).toBe("ECONNREFUSED");
  });
});
