/**
 * `a2a-bench validate-bundle FILE`: exit 0 valid; 1 invalid (every Ajv error
 * printed with its JSON path); 2 unreadable or usage.
 */
import { readFile } from "node:fs/promises";
import type { CliCommand, CliIo } from "./types.js";
import { UsageError, errorMessage } from "../util/errors.js";
import { extractBundle } from "../bundle/extract.js";
import { validateBundle } from "../bundle/validate.js";
import { parseUsage } from "../util/parse-usage.js";

/**
 * The saved document: JSON, or a raw SSE capture (`curl -N … message/stream`
 * output: `data: {json}` lines), read as `{events: [...]}` like the smoke
 * client's response file.
 */
export function parseSaved(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!/^data:/m.test(text)) throw err;
  }
  const events: unknown[] = [];
  let data: string[] = [];
  for (const line of [...text.split(/\r?\n/), ""]) {
    if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    else if (line === "" && data.length > 0) {
      events.push(JSON.parse(data.join("\n")));
      data = [];
    }
  }
  return { events };
}

/** Pure parse: exactly one FILE. */
export function parseValidateArgs(argv: string[]): { file: string } {
  const parsed = parseUsage({ args: argv, allowPositionals: true, options: {} });
  if (parsed.positionals.length !== 1) throw new UsageError("expected exactly one FILE");
  return { file: parsed.positionals[0]! };
}

export const command: CliCommand = {
  name: "validate-bundle",
  summary: "check an evaluation bundle (or a saved JSON-RPC response or smoke response file) against the schemas",
  usage: `Usage: a2a-bench validate-bundle FILE

FILE is a bare evaluation bundle, a saved JSON-RPC response / task whose
evaluation_bundle artifact holds it (DataPart or JSON TextPart), the response
file the smoke client saves (results/smoke/<time>-response.json: its stream
events), or a raw message/stream capture (the \`data:\` lines of \`curl -N\`). Checked against
schemas/evaluation_bundle.schema.json and smi_bench's v1 schema.
Exit: 0 valid, 1 invalid (each error with its JSON path), 2 unreadable or usage error.
`,
  async run(argv: string[], io: CliIo): Promise<number> {
    const { file } = parseValidateArgs(argv);
    let doc: unknown;
    try {
      doc = parseSaved(await readFile(file, "utf8"));
    } catch (err) {
      io.stderr.write(`a2a-bench validate-bundle: cannot read ${file}: ${errorMessage(err)}\n`);
      return 2;
    }
    const found = extractBundle(doc);
    if (!found.ok) {
      io.stderr.write(`a2a-bench validate-bundle: ${file}: ${found.reason}\n`);
      return 2;
    }
    const problems = validateBundle(found.bundle);
    if (problems.length > 0) {
      for (const p of problems) io.stdout.write(`${file}: ${p}\n`);
      io.stdout.write(`invalid (${problems.length} problem(s), bundle from ${found.source})\n`);
      return 1;
    }
    const b = found.bundle as { run_id?: string; benchmark?: string; exit_code?: number };
    io.stdout.write(`valid: ${b.benchmark} run ${b.run_id}, exit_code ${b.exit_code} (bundle from ${found.source})\n`);
    return 0;
  },
};
