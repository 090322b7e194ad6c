/**
 * A participant's reply → ONE action of the episode, tolerant of the
 * dialects purple agents of the field speak (docs/interactive.md lists them):
 *
 * - terminal-bench-shell-v1: `{kind: "exec_request", command, timeout?}` | `{kind: "final", output?}`;
 *   any other `kind` is invalid (RDI's green raises on it);
 * - AgentSWE, as its purples send it: an artifact whose NAME is the action (`bash`, `debug`,
 *   `patch`) and whose text is the raw command or diff (reply-content.ts keeps artifact names);
 *   bash and debug run the text, patch ends the episode with the diff as its output, marked
 *   `patch` (the agent's change: the SWE-bench episode grades it); an artifact named `error`
 *   (its model failed) is no action: the turn is invalid, the agent may recover. The JSON form
 *   `{action, content}` (that green's internal dict, also what its prompt asks models for) is
 *   read the same way;
 * - tool calls (tau2's `{name, arguments}` in a TextPart, OpenAI's `{function: {name, arguments}}`,
 *   CAR-bench's DataPart `{tool_calls: [{tool_name, arguments}]}`): a shell-like name runs
 *   `arguments.command`, a submit-like name ends the episode, tau2's `respond` too (its
 *   `content` is the output); `arguments` may be a JSON string;
 * - mini-swe-agent's sentinel: an exec whose command starts by echoing it is marked
 *   `submitOnSentinel` (sentinel.ts);
 * - text that is not JSON: `final` with the text as output (RDI's green does the same).
 * JSON is also read inside one Markdown fence or one `<json>` element (tau2's examples).
 *
 * The reply's sources (status message, artifacts, DataParts: reply-content.ts) are read
 * together: identical JSON found twice counts once; sources that decode to different actions
 * make the reply invalid (one action per turn, never a guess). Pure.
 */
import { clampCommandTimeout, DEFAULT_COMMAND_TIMEOUT_S, MAX_COMMAND_BYTES } from "./limits.js";
import { echoesSentinelFirst } from "./sentinel.js";
import type { ReplyContent } from "./reply-content.js";

/** Which convention the action was read in (recorded in the trajectory). */
export type Dialect = "terminal-bench" | "agentswe" | "tool-call" | "text";

export type Action =
  | {
      type: "exec";
      command: string;
      /** Clamped to 1–300 s; the default when the reply named none. */
      timeoutS: number;
      /** The command starts by echoing mini-swe-agent's sentinel: its output may submit (sentinel.ts). */
      submitOnSentinel: boolean;
      dialect: Dialect;
    }
  | {
      type: "final";
      output: string;
      dialect: Dialect;
      /** The output is the agent's change as a diff (AgentSWE `patch`, a submit tool's `patch`). */
      patch?: true;
    }
  | { type: "invalid"; reason: string };

/** Tool names that run a shell command. */
const EXEC_TOOLS = new Set([
  "bash",
  "shell",
  "exec",
  "exec_request",
  "execute",
  "execute_bash",
  "execute_command",
  "run",
  "run_command",
  "run_shell_command",
  "terminal",
  "cmd",
]);
/** Tool names that end the episode. */
const FINAL_TOOLS = new Set([
  "submit",
  "final",
  "final_answer",
  "done",
  "finish",
  "complete",
  "task_complete",
  "submit_answer",
  "respond",
]);

/** AgentSWE's artifact names: its actions, and `error` (its model failed: no action, the turn is invalid). */
const AGENTSWE_NAMES = new Set(["bash", "debug", "patch", "error"]);

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** `text` as JSON (an object or array), also inside one Markdown code fence; undefined when it is not. */
export function parseJsonLoose(text: string): unknown {
  const trimmed = text.trim();
  const fenced = /^```[a-zA-Z0-9_-]*\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  const tagged = /^<json>\s*([\s\S]*?)\s*<\/json>$/i.exec(trimmed);
  const candidates = [trimmed, ...(fenced ? [fenced[1]!] : []), ...(tagged ? [tagged[1]!] : [])];
  for (const candidate of candidates) {
    try {
      const v: unknown = JSON.parse(candidate);
      if (typeof v === "object" && v !== null) return v;
    } catch {
      // not JSON: try the next form
    }
  }
  return undefined;
}

function exec(command: unknown, timeout: unknown, dialect: Dialect, defaultTimeoutS: number): Action {
  if (typeof command !== "string" || command.trim() === "") {
    return { type: "invalid", reason: `${dialect} request without a command (a non-empty string)` };
  }
  const bytes = Buffer.byteLength(command, "utf8");
  if (bytes > MAX_COMMAND_BYTES) {
    return {
      type: "invalid",
      reason: `command of ${bytes} bytes is over the ${MAX_COMMAND_BYTES}-byte limit: write long content in several commands`,
    };
  }
  return {
    type: "exec",
    command,
    timeoutS: clampCommandTimeout(timeout, defaultTimeoutS),
    submitOnSentinel: echoesSentinelFirst(command),
    dialect,
  };
}

function fromKind(obj: Json, defaultTimeoutS: number): Action {
  if (obj["kind"] === "exec_request") return exec(obj["command"], obj["timeout"], "terminal-bench", defaultTimeoutS);
  if (obj["kind"] === "final") return { type: "final", output: asText(obj["output"]), dialect: "terminal-bench" };
  return {
    type: "invalid",
    reason: `unknown kind ${JSON.stringify(obj["kind"])}: send "exec_request" or "final"`,
  };
}

/**
 * AgentSWE's action with its content. `debug` runs like `bash`: the environment is the
 * agent's one working copy (there is no throwaway snapshot as AgentSWE's green keeps).
 */
function agentSweAction(action: unknown, content: unknown, timeout: unknown, defaultTimeoutS: number): Action {
  const name = typeof action === "string" ? action.trim().toLowerCase() : action;
  if (name === "bash" || name === "debug") return exec(content, timeout, "agentswe", defaultTimeoutS);
  if (name === "patch") return { type: "final", output: asText(content), dialect: "agentswe", patch: true };
  return { type: "invalid", reason: `unknown action ${JSON.stringify(action)}: send "bash", "debug" or "patch"` };
}

function fromAgentSwe(obj: Json, defaultTimeoutS: number): Action {
  const content = obj["content"] ?? obj["command"] ?? obj["patch"];
  return agentSweAction(obj["action"], content, obj["timeout"], defaultTimeoutS);
}

function toolArguments(raw: unknown): Json | undefined {
  if (raw === undefined || raw === null) return {};
  if (isObject(raw)) return raw;
  if (typeof raw === "string") {
    const parsed = raw.trim() === "" ? {} : parseJsonLoose(raw);
    return isObject(parsed) ? parsed : undefined;
  }
  return undefined;
}

function fromToolCall(call: Json, defaultTimeoutS: number): Action {
  const fn = isObject(call["function"]) ? call["function"] : call;
  const name = fn["name"] ?? fn["tool_name"];
  if (typeof name !== "string") return { type: "invalid", reason: "tool call without a name (`name` or `tool_name`)" };
  const args = toolArguments(fn["arguments"] ?? fn["args"] ?? fn["parameters"] ?? fn["input"]);
  if (!args) return { type: "invalid", reason: `tool call ${JSON.stringify(name)}: arguments are not a JSON object` };
  const key = name.toLowerCase();
  if (EXEC_TOOLS.has(key)) {
    return exec(args["command"] ?? args["cmd"], args["timeout"], "tool-call", defaultTimeoutS);
  }
  if (FINAL_TOOLS.has(key)) {
    const output = args["output"] ?? args["answer"] ?? args["result"] ?? args["content"];
    if (output === undefined && typeof args["patch"] === "string")
      return { type: "final", output: args["patch"], dialect: "tool-call", patch: true };
    return { type: "final", output: asText(output), dialect: "tool-call" };
  }
  return {
    type: "invalid",
    reason: `unknown tool ${JSON.stringify(name)}: the environment offers "bash" (arguments.command) and "submit"`,
  };
}

function fromCallList(calls: unknown[], defaultTimeoutS: number): Action {
  if (calls.length === 0) return { type: "invalid", reason: "empty list of tool calls" };
  const actions = calls.map((c) =>
    isObject(c)
      ? fromToolCall(c, defaultTimeoutS)
      : ({ type: "invalid", reason: "tool call is not an object" } as const),
  );
  return single(actions, `${calls.length} different tool calls in one reply: send one action per turn`);
}

/** One JSON value (an object or a list of tool calls) → an action. */
export function decodeValue(value: unknown, defaultTimeoutS: number = DEFAULT_COMMAND_TIMEOUT_S): Action {
  if (Array.isArray(value)) return fromCallList(value, defaultTimeoutS);
  if (!isObject(value)) return { type: "invalid", reason: "reply is not a JSON object" };
  if ("kind" in value) return fromKind(value, defaultTimeoutS);
  if ("action" in value) return fromAgentSwe(value, defaultTimeoutS);
  if (Array.isArray(value["tool_calls"])) return fromCallList(value["tool_calls"], defaultTimeoutS);
  if ("name" in value || "tool_name" in value || isObject(value["function"]))
    return fromToolCall(value, defaultTimeoutS);
  return { type: "invalid", reason: 'JSON object without a "kind": send {"kind": "exec_request", "command": ...}' };
}

/** The one distinct action among `actions`: identical ones count once, invalid ones yield to a valid one. */
function single(actions: Action[], conflict: string): Action {
  const valid = actions.filter((a) => a.type !== "invalid");
  const distinct = new Map(valid.map((a) => [JSON.stringify(a), a]));
  if (distinct.size === 1) return [...distinct.values()][0]!;
  if (distinct.size > 1) return { type: "invalid", reason: conflict };
  return actions[0] ?? { type: "invalid", reason: "empty reply" };
}

/** Key-sorted JSON of `value`, so the same object written twice in any key order compares equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

/** The texts of `texts` left once each of `taken` is removed (one occurrence each). */
function without(texts: readonly string[], taken: readonly string[]): string[] {
  const rest = [...texts];
  for (const t of taken) {
    const i = rest.indexOf(t);
    if (i !== -1) rest.splice(i, 1);
  }
  return rest;
}

/** Decode a reply's content (reply-content.ts) into one action (see the module note). */
export function decodeReply(
  content: Pick<ReplyContent, "texts" | "data"> & Partial<Pick<ReplyContent, "named">>,
  defaultTimeoutS: number = DEFAULT_COMMAND_TIMEOUT_S,
): Action {
  // AgentSWE: artifacts named after an action carry its raw content; their text is read only so.
  const named = (content.named ?? []).filter((n) => AGENTSWE_NAMES.has(n.name.trim().toLowerCase()));
  const byName = named.map((n) =>
    n.name.trim().toLowerCase() === "error"
      ? ({ type: "invalid", reason: `the participant reported an error: ${n.text.slice(0, 200)}` } as const)
      : agentSweAction(n.name, n.text, undefined, defaultTimeoutS),
  );
  const values: unknown[] = [];
  const plain: string[] = [];
  for (const text of without(
    content.texts,
    named.map((n) => n.text),
  )) {
    const v = parseJsonLoose(text);
    if (v === undefined) plain.push(text);
    else values.push(v);
  }
  values.push(...content.data);
  const unique = new Map(values.map((v) => [canonical(v), v]));
  if (unique.size === 0 && byName.length === 0) return { type: "final", output: plain.join("\n"), dialect: "text" };
  const actions = [...byName, ...[...unique.values()].map((v) => decodeValue(v, defaultTimeoutS))];
  return single(actions, `reply holds ${actions.length} different actions: send one action per turn`);
}
