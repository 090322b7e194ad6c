/**
 * The whole A2A responses of other teams' purples (tests/fixtures/dialects, one JSON-RPC response
 * per file, as each sends it on the wire: see that directory's README.md), loaded, varied (the
 * command or diff they carry), and served by a fake participant on loopback in order.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeParticipant, type FakeParticipant } from "../a2a/fake-participant.js";

export const DIALECT_FIXTURES = join(import.meta.dirname, "..", "fixtures", "dialects");

type Json = Record<string, unknown>;
type RpcResponse = { jsonrpc: string; id: number; result: Json };

/** A fixture's JSON-RPC response (a fresh copy). */
export function fixture(name: string): RpcResponse {
  return JSON.parse(readFileSync(join(DIALECT_FIXTURES, `${name}.json`), "utf8")) as RpcResponse;
}

/** The parts of the reply's first artifact (a Task) or of the message. */
function parts(body: RpcResponse): Json[] {
  const r = body.result;
  if (r["kind"] === "task") return ((r["artifacts"] as Json[])[0]!["parts"] as Json[]) ?? [];
  return r["parts"] as Json[];
}

/** AgentSWE: the artifact named `action` carrying `text` (the command or the diff). */
export function agentSwe(action: "bash" | "debug" | "patch", text: string): RpcResponse {
  const body = fixture(`agentswe-${action}`);
  parts(body)[0]!["text"] = text;
  return body;
}

/** A flat object as Python's json.dumps writes it (`, ` and `: ` between items). */
export function pythonDumps(o: Json): string {
  return `{${Object.entries(o)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(", ")}}`;
}

/** Terminal-Bench purple: its artifact `Result` holding `payload` as json.dumps writes it. */
export function terminalBench(payload: Json): RpcResponse {
  const body = fixture(payload["kind"] === "final" ? "terminal-bench-final" : "terminal-bench-exec");
  parts(body)[0]!["text"] = pythonDumps(payload);
  return body;
}

/** CAR-bench: the model's text and a DataPart calling `bash` with `command`. */
export function carBenchCall(command: string): RpcResponse {
  const body = fixture("carbench-tool-call");
  const data = parts(body)[1]!["data"] as { tool_calls: { arguments: Json }[] };
  data.tool_calls[0]!.arguments = { command };
  return body;
}

/** tau2: `{"name": "bash", "arguments": {"command": ...}}` as the model wrote it. */
export function tau2Call(command: string): RpcResponse {
  const body = fixture("tau2-tool-call");
  parts(body)[0]!["text"] = JSON.stringify({ name: "bash", arguments: { command } }, null, 2);
  return body;
}

/** mini-swe-agent's bash tool call (OpenAI form, arguments a JSON string) running `command`. */
export function miniSweCall(command: string): RpcResponse {
  const body = fixture("mini-swe-agent-submit");
  const data = parts(body)[0]!["data"] as { tool_calls: { function: { arguments: string } }[] };
  data.tool_calls[0]!.function.arguments = JSON.stringify({ command });
  return body;
}

/** A participant answering the n-th message with `replies[n]` (the last one again after the end). */
export function serveReplies(replies: RpcResponse[]): Promise<FakeParticipant> {
  return startFakeParticipant({
    answer: (n) => ({ kind: "rpc_response", body: replies[Math.min(n, replies.length - 1)]! }),
  });
}
