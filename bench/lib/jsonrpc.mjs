/**
 * Raw A2A JSON-RPC over fetch (v0.3 method names, as AgentBeats' client
 * sends them): one request/response call and an SSE reader for
 * message/stream. Kept free of the SDK so the bench measures the server, not
 * client-side parsing layers.
 */
let seq = 0;

/** A v0.3 user message with one text part. */
export function userMessage(text, extra = {}) {
  return {
    kind: "message",
    role: "user",
    messageId: `bench-${process.pid}-${++seq}`,
    parts: [{ kind: "text", text }],
    ...extra,
  };
}

/** POST one JSON-RPC call; resolves the parsed body. */
export async function call(url, method, params) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++seq, method, params }),
  });
  return r.json();
}

/**
 * POST message/stream and call `onEvent(result, receivedAtMs)` for every SSE
 * event, with the receive time taken as soon as the event's data is parsed
 * (ms on the performance.timeOrigin + now() clock, comparable across processes).
 * Resolves when the stream ends; `signal` aborts it.
 */
export async function stream(url, params, onEvent, signal) {
  const r = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++seq, method: "message/stream", params }),
    signal,
  });
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of r.body) {
    buf += decoder.decode(chunk, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5))
        .join("\n");
      if (!data) continue;
      const at = performance.timeOrigin + performance.now();
      const msg = JSON.parse(data);
      if (onEvent(msg.result ?? msg, at) === false) return;
    }
  }
}

/** Wall-clock ms with sub-ms precision, comparable across processes on one box. */
export const nowMs = () => performance.timeOrigin + performance.now();
