/** The openai mode against a local stand-in chat-completions server on 127.0.0.1 (never the internet). */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAISolver } from "../../../src/purple/solvers/openai.js";

interface Seen {
  path: string;
  auth: string | undefined;
  body: { model: string; messages: Array<{ role: string; content: string }> };
}

let server: Server;
let baseUrl: string;
let seen: Seen[] = [];
let script: Array<(res: ServerResponse) => void> = [];

const reply = (content: string) => (res: ServerResponse) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ id: "x", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content } }] }));
};
const status = (code: number, headers: Record<string, string> = {}) => (res: ServerResponse) => {
  res.writeHead(code, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ error: { message: `status ${code}` } }));
};

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let data = "";
    req.on("data", (c: Buffer) => (data += c.toString()));
    req.on("end", () => {
      seen.push({ path: req.url ?? "", auth: req.headers.authorization, body: JSON.parse(data || "{}") as Seen["body"] });
      const step = script.shift() ?? status(500);
      if (step === destroy) req.socket.destroy();
      else step(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
beforeEach(() => {
  seen = [];
  script = [];
});
const destroy = (_res: ServerResponse): void => {};

const env = () => ({ OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: "sk-test" });
const signal = new AbortController().signal;

describe("openai solver", () => {
  it("posts the prompt to /chat/completions with the model and key, returns the content", async () => {
    script = [reply("```python\n    return 1\n```")];
    const solver = createOpenAISolver({ model: "m-1", env: env() });
    const out = await solver.solve({ text: "Complete f", data: undefined, metadata: undefined }, signal);
    expect(out.text).toBe("```python\n    return 1\n```");
    expect(seen).toHaveLength(1);
    expect(seen[0]?.path).toBe("/v1/chat/completions");
    expect(seen[0]?.auth).toBe("Bearer sk-test");
    expect(seen[0]?.body.model).toBe("m-1");
    expect(seen[0]?.body.messages.at(-1)).toEqual({ role: "user", content: "Complete f" });
  });

  it("retries a 429 (honouring Retry-After) and a 5xx, then succeeds", async () => {
    script = [status(429, { "retry-after": "0.05" }), status(503), reply("ok")];
    const solver = createOpenAISolver({ model: "m", env: env(), backoffMs: 10 });
    const t0 = Date.now();
    expect((await solver.solve({ text: "q", data: undefined, metadata: undefined }, signal)).text).toBe("ok");
    expect(seen).toHaveLength(3);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(50);
  });

  it("retries a dropped connection", async () => {
    script = [destroy, reply("after reset")];
    const solver = createOpenAISolver({ model: "m", env: env(), backoffMs: 10 });
    expect((await solver.solve({ text: "q", data: undefined, metadata: undefined }, signal)).text).toBe("after reset");
  });

  it("gives up after the bounded attempts, and at once on a 400", async () => {
    script = [status(500), status(500), status(500)];
    const solver = createOpenAISolver({ model: "m", env: env(), backoffMs: 5, attempts: 3 });
    await expect(solver.solve({ text: "q", data: undefined, metadata: undefined }, signal)).rejects.toThrow(/after 3 attempts: HTTP 500/);
    expect(seen).toHaveLength(3);
    seen = [];
    script = [status(400), reply("never")];
    await expect(solver.solve({ text: "q", data: undefined, metadata: undefined }, signal)).rejects.toMatchObject({ code: "E_OPENAI", status: 400 });
    expect(seen).toHaveLength(1);
  });

  it("needs a model, and a key for the default endpoint", () => {
    expect(() => createOpenAISolver({ env: { OPENAI_BASE_URL: baseUrl } })).toThrow(/needs --model/);
    expect(() => createOpenAISolver({ model: "m", env: {} })).toThrow(/OPENAI_API_KEY/);
  });
});
