/**
 * An interactive episode's trajectory file (src/interactive/trajectory.ts: an `episode_start` line, one
 * `turn` line per participant turn, an `episode_end` line) as the turns the item view draws: the command
 * the participant asked for (or its final answer, or why its reply was invalid), the task message the first
 * turn sent, the participant's reply as its bytes came over the wire, the exit code, the recorded output (as
 * the participant was sent it), what was cut before it saw it, timings, and at the end the episode's exit
 * status with the usage the participant reported (its word, not a measurement). Lines of another shape
 * (a generic `{turn, command, exit_code, output}` trajectory) pass through unchanged, so the view keeps
 * reading them. Pure: it only reshapes parsed JSON.
 */

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
/** A recorded stream: its text (`{text, elided_chars, bytes, sha256}`), or the text itself (older files). */
const stream = (v: unknown): string | undefined => (isRecord(v) ? str(v["text"]) : str(v));

/** What the participant's decoded action was, as one line of text. */
function actionText(action: unknown): { command?: string; message?: string } {
  if (!isRecord(action)) return {};
  if (action["type"] === "exec") return { command: str(action["command"]) ?? "" };
  if (action["type"] === "final") return { message: `final answer:\n${str(action["output"]) ?? ""}` };
  if (action["type"] === "invalid") return { message: `invalid reply: ${str(action["reason"]) ?? ""}` };
  return {};
}

/** One `turn` line as a drawn turn. */
function turnOf(line: Json): Json {
  const out: Json = { turn: num(line["turn"]) };
  const { command, message } = actionText(line["action"]);
  if (command !== undefined) out["command"] = command;
  if (message !== undefined) out["message"] = message;
  if (line["action"] === undefined) out["message"] = "no reply from the participant";
  const ran = line["command"];
  if (isRecord(ran)) {
    out["exit_code"] = ran["exit_code"];
    out["output"] = stream(ran["stdout"]) ?? "";
    const stderr = stream(ran["stderr"]);
    if (stderr) out["stderr"] = stderr;
    out["duration_ms"] = num(ran["duration_ms"]);
    if (ran["timed_out"] === true) out["timed_out"] = true;
    if (str(ran["infra_error"])) out["environment_error"] = ran["infra_error"];
  }
  const sent = line["result_sent"];
  if (isRecord(sent)) {
    const elided = (num(sent["stdout_elided_chars"]) ?? 0) + (num(sent["stderr_elided_chars"]) ?? 0);
    if (elided > 0) {
      out["output_truncated"] = true;
      out["elided_chars_sent"] = elided;
    }
  }
  out["started_at"] = str(line["sent_at"]);
  // The first message sent is the task itself; later ones answer the previous command (shown as its output).
  const sentLine = line["sent"];
  if (num(line["turn"]) === 1 && isRecord(sentLine) && str(sentLine["text"])) out["task_message"] = sentLine["text"];
  const reply = line["reply"];
  if (isRecord(reply) && reply["state"] !== undefined) out["reply_state"] = reply["state"];
  // The reply's body as received (`wire`; a body that is not UTF-8 is base64 there), or an older file's `raw`.
  const wire = line["wire"];
  if (isRecord(wire) && str(wire["body"]) !== undefined)
    out["reply_raw"] = wire["body_encoding"] === "base64" ? `(base64) ${str(wire["body"])}` : wire["body"];
  else if (isRecord(reply) && str(reply["raw"])) out["reply_raw"] = reply["raw"];
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

/** The `episode_end` line as a closing entry: exit status, counts, self-reported usage. */
function endOf(line: Json): Json {
  const record = isRecord(line["record"]) ? line["record"] : {};
  const usage = isRecord(record["usage"]) ? record["usage"] : undefined;
  const error = isRecord(record["error"])
    ? `${str(record["error"]["code"]) ?? ""}: ${str(record["error"]["message"]) ?? ""}`
    : "";
  const summary = [
    `episode ended: ${str(record["exit_status"]) ?? "?"}`,
    // The record counts the turns the participant answered (a turn that timed out is not one of them).
    `${num(record["turns"]) ?? 0} turns answered, ${num(record["commands"]) ?? 0} commands`,
    error,
  ].filter(Boolean);
  return {
    turn: "end",
    message: summary.join("\n"),
    ...(usage ? { usage: { ...usage, self_reported: true } } : {}),
    ...(str(line["at"]) ? { started_at: line["at"] } : {}),
  };
}

/** The drawn turns of a trajectory's parsed lines (see the module note). */
export function trajectoryTurns(records: readonly unknown[]): unknown[] {
  const turns: unknown[] = [];
  for (const r of records) {
    if (!isRecord(r) || typeof r["type"] !== "string") {
      turns.push(r);
      continue;
    }
    if (r["type"] === "turn") turns.push(turnOf(r));
    else if (r["type"] === "episode_end") turns.push(endOf(r));
    else if (r["type"] !== "episode_start") turns.push(r);
  }
  return turns;
}
