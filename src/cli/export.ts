/**
 * `a2a-bench export --format atif PATH [--out DIR] [--agent-name N] [--agent-version V]`: episode trajectories
 * in another format. Exit 0 when every trajectory was exported, 1 when none was found or one failed, 2 usage.
 */
import type { CliCommand, CliIo } from "./types.js";
import { UsageError } from "../util/errors.js";
import { didYouMean } from "../util/suggest.js";
import { parseUsage } from "../util/parse-usage.js";
import { exportAtif, ATIF_FILE, type ExportOptions } from "../export/export-run.js";

/** The formats `export` writes. */
export const EXPORT_FORMATS = ["atif"] as const;

export const usage = `Usage: a2a-bench export --format atif PATH [--out DIR] [--agent-name N] [--agent-version V]

Writes each episode trajectory of a run as an ATIF v1.7 document (Harbor's Agent Trajectory Interchange
Format), checked against schemas/atif_trajectory.schema.json before it is written. PATH is a run directory
(every trajectory.jsonl below it) or one trajectory file.

  --format F         ${EXPORT_FORMATS.join("|")} (required)
  --out DIR          write under DIR, mirroring the run's layout (default: beside each trajectory, as ${ATIF_FILE})
  --agent-name N     the participant's name in the document (default a2a-participant)
  --agent-version V  its version (default unknown)
`;

/** Parse argv (pure). */
export function parseExportArgs(argv: string[]): ExportOptions {
  const { values, positionals } = parseUsage({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: "string" },
      out: { type: "string" },
      "agent-name": { type: "string" },
      "agent-version": { type: "string" },
    },
  });
  if (values.format === undefined) throw new UsageError(`--format is required (${EXPORT_FORMATS.join(", ")})`);
  if (!(EXPORT_FORMATS as readonly string[]).includes(values.format))
    throw new UsageError(
      `--format must be one of ${EXPORT_FORMATS.join(", ")}, got "${values.format}"${didYouMean(values.format, EXPORT_FORMATS)}`,
    );
  if (positionals.length !== 1) throw new UsageError(`expected exactly one PATH, got ${positionals.length}`);
  for (const name of ["out", "agent-name", "agent-version"] as const)
    if (values[name] === "") throw new UsageError(`--${name} must not be empty`);
  return {
    path: positionals[0]!,
    out: values.out,
    agentName: values["agent-name"] ?? "a2a-participant",
    agentVersion: values["agent-version"] ?? "unknown",
  };
}

export const command: CliCommand = {
  name: "export",
  summary: "write a run's episode trajectories in another format (ATIF)",
  usage,
  async run(argv: string[], io: CliIo): Promise<number> {
    const options = parseExportArgs(argv);
    const exported = await exportAtif(options);
    for (const e of exported)
      io.stdout.write(
        `${e.source} → ${e.written} (${e.steps} steps${e.tornLastLine ? "; its torn last line left out" : ""})\n`,
      );
    io.stdout.write(`exported ${exported.length} trajectories as ATIF v1.7\n`);
    return 0;
  },
};
