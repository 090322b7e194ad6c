/**
 * A loopback relay in this process that passes every request on to `target` and keeps the first POST's URL path,
 * headers and body (the exact bytes a client sent, to replay them with a bare `fetch` against the same agent), and the
 * reply it got (its body and Content-Type).
 */
import http from "node:http";

/** @returns {Promise<{url: string, first: () => ({path: string, headers: Record<string, string>, body: string, reply: string, type: string | null} | null), close: () => Promise<void>}>} */
export async function captureRelay(target) {
  let first = null;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = {};
      for (const [k, v] of Object.entries(req.headers))
        if (!["host", "connection", "content-length", "accept-encoding"].includes(k)) headers[k] = String(v);
      const keep = first === null && req.method === "POST";
      try {
        const r = await fetch(new URL(req.url, target), {
          method: req.method,
          headers,
          ...(req.method === "POST" ? { body } : {}),
        });
        const buf = Buffer.from(await r.arrayBuffer());
        if (keep)
          first = { path: req.url, headers, body, reply: buf.toString("utf8"), type: r.headers.get("content-type") };
        res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" });
        res.end(buf);
      } catch (err) {
        res.writeHead(502).end(String(err));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/`,
    first: () => first,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
