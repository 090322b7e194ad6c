/**
 * `.env` files: KEY=VALUE lines for the agents' environments. Values are
 * secrets by assumption: they go to the child processes only, never into
 * logs, the pid file or status output ({@link maskValue}).
 */
import { readFileSync } from "node:fs";
import { BenchError } from "../util/errors.js";

/** Parse dotenv text: `KEY=VALUE`, optional `export `, `#` comments, single/double quotes. */
export function parseEnvFile(text: string, file = ".env"): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m || m[1] === undefined || m[2] === undefined)
      throw new BenchError("E_ENV_FILE", `${file}:${i + 1}: expected KEY=VALUE`);
    let value = m[2];
    if (/^"(.*)"$/.test(value)) value = value.slice(1, -1).replace(/\\n/g, "\n").replace(/\\"/g, '"');
    else if (/^'(.*)'$/.test(value)) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, "");
    out[m[1]] = value;
  });
  return out;
}

/** Read and parse an env file; a missing file is an error naming it. */
export function readEnvFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new BenchError("E_ENV_FILE", `${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return parseEnvFile(text, path);
}

/** Masked form of a secret for display: never more than 2 leading characters, length hidden. */
export function maskValue(value: string): string {
  if (value.length === 0) return "(empty)";
  return value.length >= 12 ? `${value.slice(0, 2)}****` : "****";
}
