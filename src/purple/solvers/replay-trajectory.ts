/**
 * The recorded trajectory the `replay` mode plays back: JSON Lines, one
 * object per line; each line with an `action` holds one participant action of
 * `terminal-bench-shell-v1`, in the order sent:
 *
 *     {"action": {"kind": "exec_request", "command": "ls", "timeout": 30}}
 *     {"action": {"kind": "final", "output": "done"}}
 *
 * Lines without `action` (a header, an observation of a richer trajectory
 * record) are skipped, so a trajectory written by the green, whose lines
 * carry the decoded action beside what came back, replays as it is. Checked
 * whole at start-up: a bad line is an error naming the file and line.
 */
import { readFile } from "node:fs/promises";
import { InputFileError } from "../../util/errors.js";
import { parseJsonlLines, textOfMaybeGzip } from "../../util/jsonl.js";
import type { ParticipantAction } from "../interactive/wire.js";

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

/** Parse a trajectory's text; `source` names it in errors. */
export function parseTrajectory(text: string, source: string): ParticipantAction[] {
  const actions: ParticipantAction[] = [];
  for (const { line, value } of parseJsonlLines(text, source)) {
    if (!isObject(value)) throw new InputFileError(source, `line ${line} is not a JSON object`);
    if (!("action" in value)) continue;
    const raw = value["action"];
    const action = isObject(raw) ? actionOf(raw) : "`action` must be an object";
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
