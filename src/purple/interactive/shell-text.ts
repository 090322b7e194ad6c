/**
 * Shell text for interactive modes that write files through `exec_request`.
 *
 * A quoted heredoc passes its body byte for byte (no expansion), provided no
 * body line equals the delimiter, so the delimiter is random and checked. A
 * green refuses a command over its size limit (src/interactive/limits.ts
 * MAX_COMMAND_BYTES: one argv string has to hold it), so content too large
 * for one command goes in several, base64-encoded (exact for any bytes, a
 * line break or not at a chunk's end) and appended to the file.
 */
import { randomBytes } from "node:crypto";
import { MAX_COMMAND_BYTES } from "../../interactive/limits.js";

/** Largest command the interactive modes send, UTF-8 bytes: under the green's limit, with room to spare. */
export const COMMAND_BUDGET_BYTES = Math.floor((MAX_COMMAND_BYTES * 3) / 4);

import { shellQuote } from "../../util/shell-quote.js";

export { shellQuote };

/** A heredoc delimiter that is no line of `body`. */
export function heredocDelimiter(body: string, prefix = "A2A_BENCH_EOF"): string {
  const lines = new Set(body.split("\n"));
  for (;;) {
    const delimiter = `${prefix}_${randomBytes(8).toString("hex")}`;
    if (!lines.has(delimiter)) return delimiter;
  }
}

/** `command <<'DELIM'` feeding `body` (a final newline added when missing) on stdin. */
export function withHeredoc(command: string, body: string): string {
  const delimiter = heredocDelimiter(body);
  const text = body.endsWith("\n") || body === "" ? body : body + "\n";
  return `${command} <<'${delimiter}'\n${text}${delimiter}`;
}

/** `cd DIR && command` when a working directory is given. */
export function inDir(workdir: string | undefined, command: string): string {
  return workdir ? `cd ${shellQuote(workdir)} && ${command}` : command;
}

/** UTF-8 size of a command. */
export function commandBytes(command: string): number {
  return Buffer.byteLength(command, "utf8");
}

/** Room left for a command's own words around its heredoc body (the verb, the path, the delimiter lines). */
const OVERHEAD_BYTES = 4096;

/**
 * Commands that write `content` to `path` exactly, each at most `budget`
 * bytes: one `cat > path` heredoc when it fits and the content ends with a
 * line break (a heredoc always ends with one), else base64 chunks decoded
 * with `base64 -d`, the first truncating the file and the rest appending.
 */
export function writeFileCommands(path: string, content: string, budget = COMMAND_BUDGET_BYTES): string[] {
  const target = shellQuote(path);
  if (content.endsWith("\n")) {
    const single = withHeredoc(`cat > ${target}`, content);
    if (commandBytes(single) <= budget) return [single];
  }
  if (budget <= OVERHEAD_BYTES + 77) throw new RangeError(`a command budget of ${budget} bytes is too small`);
  // base64 turns 3 bytes into 4 characters, plus a line break per 76 characters (57 bytes).
  const chunkBytes = Math.floor((budget - OVERHEAD_BYTES) / 77) * 57;
  const bytes = Buffer.from(content, "utf8");
  const commands: string[] = [];
  for (let at = 0; at === 0 || at < bytes.length; at += chunkBytes) {
    const encoded = bytes.subarray(at, at + chunkBytes).toString("base64");
    const lines = encoded.match(/.{1,76}/g) ?? [];
    commands.push(withHeredoc(`base64 -d ${at === 0 ? ">" : ">>"} ${target}`, lines.join("\n")));
  }
  return commands;
}
