/**
 * The recorded trajectory the `replay` mode plays back: JSON Lines, one
 * object per line, read in either of two shapes:
 *
 * - the simple one, one participant action of `terminal-bench-shell-v1` per
 *   line under `action`, in the order sent:
 *
 *       {"action": {"kind": "exec_request", "command": "ls", "timeout": 30}}
 *       {"action": {"kind": "final", "output": "done"}}
 *
 * - the trajectory an interactive episode of the green writes
 *   (src/interactive/trajectory.ts): its `turn` lines carry the decoded
 *   action (`{"type": "exec", "command", "timeoutS"}` or `{"type": "final",
 *   "output"}`); a turn whose reply was no valid action (`"type": "invalid"`)
 *   or that got no reply is skipped, and so are the `episode_start` and
 *   `episode_end` lines. So the trajectory of one run replays as it is.
 *
 * Checked whole at start-up: a bad line is an error naming the file and line.
 */
import { readFile } from "node:fs/promises";
import { InputFileError } from "../../util/errors.js";
import { parseJsonlLines, textOfMaybeGzip } from "../../util/jsonl.js";
import type { ParticipantAction } from "../interactive/assessor-message.js";

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The action of one line, or a reason it is not one. */
function actionOf(v: Record<string, unknown>): ParticipantAction | string {
  if (v["kind"] === "exec_request") {
    const command = v["command"];
    if (typeof command !== "string" || command === "") return "an exec_request needs a non-empty string `command`";
    const timeout = v["timeout"];
    if (timeout === undefined) return { kind: "exec_request", command };
    if (typeof timeout !== "number" || !Number.isSafeInteger(timeout) || timeout < 1)
      return "an exec_request's `timeout` must be a positive integer (seconds)";
    return { kind: "exec_request", command, timeout };
  }
  if (v["kind"] === "final") {
    const output = v["output"];
    if (output === undefined || output === null) return { kind: "final" };
    return typeof output === "string" ? { kind: "final", output } : "a final's `output` must be a string";
  }
  return `unknown action kind ${JSON.stringify(v["kind"])} (exec_request or final)`;
}

/** The action a green's trajectory recorded for a turn (decode.ts's Action), undefined for an invalid reply. */
function recordedAction(v: Record<string, unknown>): ParticipantAction | string | undefined {
  if (v["type"] === "invalid") return undefined;
  if (v["type"] === "exec") {
    const { command, timeoutS } = v;
    return actionOf({ kind: "exec_request", command, ...(timeoutS !== undefined ? { timeout: timeoutS } : {}) });
  }
  if (v["type"] === "final") return actionOf({ kind: "final", output: v["output"] });
  return `unknown recorded action type ${JSON.stringify(v["type"])} (exec, final or invalid)`;
}

/** Whether the trajectory's bound cut this turn's action (its `elided` list, or the whole line: trajectory-budget.ts). */
function actionCut(value: Record<string, unknown>): boolean {
  if (isObject(value["line_elided"])) return true;
  const elided = value["elided"];
  return (
    Array.isArray(elided) &&
    elided.some((e) => isObject(e) && typeof e["field"] === "string" && e["field"].startsWith("action."))
  );
}

/** The action of one line: undefined for a line that holds none. */
function lineAction(value: Record<string, unknown>): ParticipantAction | string | undefined {
  if (!("action" in value)) return undefined;
  const raw = value["action"];
  if (!isObject(raw)) return "`action` must be an object";
  if (value["type"] !== "turn") return actionOf(raw);
  const action = recordedAction(raw);
  if (action !== undefined && actionCut(value))
    return "the trajectory's size bound cut this turn's action, so it cannot be replayed as it was sent";
  return action;
}

/** Parse a trajectory's text; `source` names it in errors. */
export function parseTrajectory(text: string, source: string): ParticipantAction[] {
  const actions: ParticipantAction[] = [];
  for (const { line, value } of parseJsonlLines(text, source)) {
    if (!isObject(value)) throw new InputFileError(source, `line ${line} is not a JSON object`);
    const action = lineAction(value);
    if (action === undefined) continue;
    if (typeof action === "string") throw new InputFileError(source, `line ${line}: ${action}`);
    if (actions.at(-1)?.kind === "final")
      throw new InputFileError(source, `line ${line}: an action after the final one`);
    actions.push(action);
  }
  if (actions.length === 0) throw new InputFileError(source, "no line holds an `action`");
  return actions;
}

/** Read and parse a trajectory file (gzip recognised by its bytes). */
export async function loadTrajectory(path: string): Promise<ParticipantAction[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new InputFileError(path, `cannot read the trajectory (${(err as Error).message})`, { cause: err });
  }
  return parseTrajectory(textOfMaybeGzip(bytes, path), path);
}
