/**
 * `a2a-bench merge DIR… --out DIR [--run-id ID]`: merge the runs of the shards
 * of one assessment (run by hand, or by any engine) into one run: results.json,
 * run_metadata.json, events.jsonl, merge.json and evaluation_bundle.json (the
 * bundle the green agent would return, schema-validated) in `--out`
 * (src/shards/merge.ts, merge-bundle.ts).
 * Exit 0 merged (the merged run's status says whether it is a score), 1 refused
 * (shards of different assessments, a shard missing or unfinished, an item not
 * judged exactly once, a corrupt checkpoint: the message names what), 2 usage.
 */
import type { CliCommand, CliIo } from "./types.js";
import { UsageError } from "../util/errors.js";
import { parseUsage } from "../util/parse-usage.js";
import { createLogger } from "../util/logger.js";
import { mergeShards } from "../shards/merge.js";
import { writeMergedBundle } from "../shards/merge-bundle.js";

export interface MergeArgs {
  dirs: string[];
  out: string;
  runId?: string;
  json: boolean;
}

/** Pure parse: at least one DIR and `--out`. */
export function parseMergeArgs(argv: string[]): MergeArgs {
  const parsed = parseUsage({
    args: argv,
    allowPositionals: true,
    options: { out: { type: "string" }, "run-id": { type: "string" }, json: { type: "boolean" } },
  });
  const problems: string[] = [];
  if (parsed.positionals.length === 0) problems.push("expected the shard directories (DIR…)");
  const out = parsed.values["out"];
  if (typeof out !== "string" || out === "") problems.push("--out DIR is required");
  if (problems.length > 0) throw new UsageError(problems.join("; "));
  const runId = parsed.values["run-id"];
  return {
    dirs: parsed.positionals,
    out: out as string,
    ...(typeof runId === "string" ? { runId } : {}),
    json: parsed.values["json"] === true,
  };
}

export const command: CliCommand = {
  name: "merge",
  summary: "merge the runs of an assessment's shards into one results file (each item judged exactly once)",
  usage: `Usage: a2a-bench merge DIR… --out DIR [--run-id ID] [--json]

Each DIR is the output directory of one shard's finished run (\`a2a-bench run … --shard-index i
--num-shards N --out DIR\`). The shards must be of one assessment (same benchmark, dataset and its
sha256, seed, samples, n, k, agent, num_shards and config; only run id, shard index, concurrency
and resume may differ), each shard 0…N-1 given once. Every checkpoint line is verified by its
checksum, and the dataset is read again to check that every selected item was judged exactly once.
Writes results.json (rows in dataset order, each with its provenance: shard, worker, engine),
run_metadata.json, events.jsonl, merge.json and evaluation_bundle.json (validated by its schema)
in --out.
--run-id: the merged run's id (default: the shards' run id without its -shard-<i> suffix).
--json: print the merged run's {run_id, status, out, results_path, bundle_path, bundle_status,
aggregate} as one JSON line.
Exit: 0 merged, 1 refused (the message names what differs or is missing), 2 usage error.
`,
  async run(argv: string[], io: CliIo): Promise<number> {
    const args = parseMergeArgs(argv);
    const logger = createLogger({ component: "merge", destination: io.stderr, color: false });
    const merged = await mergeShards({
      dirs: args.dirs,
      out: args.out,
      ...(args.runId !== undefined ? { runId: args.runId } : {}),
      logger,
    });
    const { results, paths, report } = merged;
    const agent = (results.config as { agent?: unknown }).agent;
    const bundle = await writeMergedBundle(merged, typeof agent === "string" ? { participant: agent } : {});
    if (args.json) {
      io.stdout.write(
        JSON.stringify({
          run_id: results.run_id,
          status: results.status,
          out: paths.out,
          results_path: paths.results,
          bundle_path: bundle.path,
          bundle_status: bundle.bundle.status,
          aggregate: results.aggregate,
        }) + "\n",
      );
    } else {
      io.stdout.write(
        `merged ${report.shards.length} shard(s) of ${results.benchmark}: ${report.items} item(s), each judged once; ` +
          `status ${results.status}; out ${paths.out}\n`,
      );
    }
    return 0;
  },
};
