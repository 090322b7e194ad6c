/**
 * Shell text for interactive modes that write files through `exec_request`:
 * a quoted heredoc passes its body byte for byte (no expansion), provided no
 * body line equals the delimiter, so the delimiter is random and checked.
 */
import { randomBytes } from "node:crypto";

/** `s` as one single-quoted POSIX shell word. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

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
