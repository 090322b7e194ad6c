/**
 * A `fetch` wrapper for the SDK's JSON-RPC transport that keeps what went over
 * the wire: the JSON-RPC method of every request and, for `text/event-stream`
 * answers, every SSE `data:` payload (the raw JSON-RPC responses, v0.3 shape)
 * via a tee of the body. The saved smoke response is this raw record, not the
 * SDK's converted objects, so it is exactly what an AgentBeats client receives.
 */

export interface WireRecord {
  /** JSON-RPC methods sent, in order (e.g. `message/stream`). */
  methods: string[];
  /** Every SSE data payload received, parsed as JSON (or kept as a string when not JSON). */
  events: unknown[];
}

function methodOf(body: unknown): string | undefined {
  if (typeof body !== "string") return undefined;
  try {
    const m = (JSON.parse(body) as { method?: unknown }).method;
    return typeof m === "string" ? m : undefined;
  } catch {
    return undefined;
  }
}

async function collectSse(stream: ReadableStream<Uint8Array>, into: unknown[]): Promise<void> {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  let buffer = "";
  let data: string[] = [];
  const flushEvent = (): void => {
    if (data.length === 0) return;
    const text = data.join("\n");
    data = [];
    try {
      into.push(JSON.parse(text));
    } catch {
      into.push(text);
    }
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
      if (line === "") flushEvent();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
  }
  flushEvent();
}

/** Wrap `fetch`; returns the wrapper, the record it fills, and a promise settling when every tee has drained. */
export function recordingFetch(base: typeof fetch = fetch): {
  fetch: typeof fetch;
  record: WireRecord;
  drained: () => Promise<void>;
} {
  const record: WireRecord = { methods: [], events: [] };
  const pending: Promise<void>[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const method = methodOf(init?.body);
    if (method) record.methods.push(method);
    const res = await base(input, init);
    if (!res.body || !(res.headers.get("content-type") ?? "").includes("text/event-stream")) return res;
    const [forSdk, forUs] = res.body.tee();
    pending.push(collectSse(forUs, record.events).catch(() => {}));
    return new Response(forSdk, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  return { fetch: wrapped, record, drained: async () => void (await Promise.all(pending)) };
}
