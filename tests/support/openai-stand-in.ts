/**
 * A local OpenAI-compatible chat-completions server for tests (node:http on
 * 127.0.0.1:0, never the internet). It records every request (path, auth,
 * JSON body) and answers from a script of steps, one per request; when the
 * script is empty it answers with `fallback`. Answers may be text or tool
 * calls (the `agent` mode's loop).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  path: string;
  auth: string | undefined;
  body: Record<string, unknown> & {
    model?: string;
    /** `content` is null in an assistant message that only calls tools. */
    messages?: Array<{ role: string; content: string; tool_calls?: ToolCall[]; tool_call_id?: string }>;
    tools?: Array<{ type: string; function: { name: string } }>;
  };
}

export type Step = (res: ServerResponse, req: SeenRequest) => void;

export interface StandIn {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  seen: SeenRequest[];
  script: Step[];
  fallback: Step;
  reset(): void;
  close(): Promise<void>;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details?: { reasoning_tokens: number };
}

const DEFAULT_USAGE: Usage = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

/** A completion with `message` as the first choice. */
export function completion(
  message: Record<string, unknown>,
  extra: { finish_reason?: string; usage?: Usage | null } = {},
): Step {
  return (res, req) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "chatcmpl-test",
        object: "chat.completion",
        created: 0,
        model: req.body.model ?? "unknown",
        choices: [
          {
            index: 0,
            message: { role: "assistant", refusal: null, ...message },
            finish_reason: extra.finish_reason ?? "stop",
            logprobs: null,
          },
        ],
        ...(extra.usage === null ? {} : { usage: extra.usage ?? DEFAULT_USAGE }),
      }),
    );
  };
}

/** One tool call of a scripted answer; `arguments` as the server sends them (a JSON string), or an object to encode. */
export interface ToolCall {
  id?: string;
  type?: string;
  function: { name: string; arguments: string | Record<string, unknown> };
}

/** An answer calling tools (finish_reason `tool_calls`), with optional text beside the calls. */
export function toolCalls(calls: ToolCall[], extra: { content?: string; usage?: Usage | null } = {}): Step {
  return completion(
    {
      content: extra.content ?? null,
      tool_calls: calls.map((c, i) => ({
        id: c.id ?? `call_${i}`,
        type: c.type ?? "function",
        function: {
          name: c.function.name,
          arguments:
            typeof c.function.arguments === "string" ? c.function.arguments : JSON.stringify(c.function.arguments),
        },
      })),
    },
    { finish_reason: "tool_calls", ...(extra.usage !== undefined ? { usage: extra.usage } : {}) },
  );
}

/** A call of a tool named `name` with `args`. */
export const call = (name: string, args: string | Record<string, unknown>, id?: string): ToolCall => ({
  ...(id !== undefined ? { id } : {}),
  function: { name, arguments: args },
});

/** A plain answer. */
export const reply = (content: string, usage?: Usage): Step => completion({ content }, usage ? { usage } : {});

/** An error status (with optional headers, e.g. `retry-after-ms`). */
export const status =
  (code: number, headers: Record<string, string> = {}): Step =>
  (res) => {
    res.writeHead(code, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify({ error: { message: `status ${code}`, type: "test", code: null } }));
  };

/** Answer with `step` after `ms` (a slow server). */
export const after =
  (ms: number, step: Step): Step =>
  (res, req) => {
    const t = setTimeout(() => {
      if (!res.destroyed) step(res, req);
    }, ms);
    res.on("close", () => clearTimeout(t));
  };

export async function startStandIn(): Promise<StandIn> {
  const state = { seen: [] as SeenRequest[], script: [] as Step[], fallback: status(500) };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let data = "";
    req.on("data", (c: Buffer) => (data += c.toString()));
    req.on("end", () => {
      const seen: SeenRequest = {
        path: req.url ?? "",
        auth: req.headers.authorization,
        body: JSON.parse(data || "{}") as SeenRequest["body"],
      };
      state.seen.push(seen);
      (state.script.shift() ?? state.fallback)(res, seen);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const standIn: StandIn = {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get seen() {
      return state.seen;
    },
    get script() {
      return state.script;
    },
    set script(s: Step[]) {
      state.script = s;
    },
    get fallback() {
      return state.fallback;
    },
    set fallback(f: Step) {
      state.fallback = f;
    },
    reset() {
      state.seen = [];
      state.script = [];
      state.fallback = status(500);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return standIn;
}
