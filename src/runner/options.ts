/**
 * The options of one run: the resolved request config (request-config/resolve.ts)
 * plus where to write. One type from the request (CLI flags, a green request,
 * the library) through the runner child into the engine and each benchmark:
 * every default is already in it, so no reader restates one.
 */
import { join, resolve } from "node:path";
import type { ResolvedConfig } from "../request-config/config.js";
import { resolveConfig, type ResolveOptions } from "../request-config/resolve.js";
import { participantConflicts } from "../request-config/participant-rules.js";
import { interactionProblems, type OfferedInteractions } from "../request-config/interaction-rules.js";
import { formatAjvErrors } from "../util/schema.js";
import { ValidationError } from "../util/errors.js";

/** Options of one runner invocation: the resolved config plus where to write. */
export interface RunOptions extends ResolvedConfig {
  /** Output directory of the run (results, events, run_metadata, checkpoint). */
  out: string;
}

/** The default output directory of a run: `<cwd>/results/<benchmark>/<run_id>`. */
export function defaultRunOut(config: Pick<ResolvedConfig, "benchmark" | "run_id">, cwd: string): string {
  return join(cwd, "results", config.benchmark, config.run_id);
}

/** {@link resolveRunOptions}' choices beside the config. */
export interface RunOptionsSource extends ResolveOptions {
  /** Output directory (relative to `cwd`); default {@link defaultRunOut}. */
  out?: string;
  /** Base of a relative `out` and of the default one; default `process.cwd()`. */
  cwd?: string;
}

/**
 * Check and resolve a request config once (schema defaults, run id, shard,
 * concurrency; see request-config/resolve.ts), refuse a named participant
 * beside a key that replaces it (participant-rules.ts), and add the output
 * directory. `offered` is the registry's table of interactions (interaction-rules.ts). A config that is already resolved comes back unchanged (its run
 * id kept). Throws ValidationError listing every problem. The CLI words the
 * same checks for its flags (run-args.ts); the library calls this.
 */
export function resolveRunOptions(
  offered: OfferedInteractions,
  raw: unknown,
  source: RunOptionsSource = {},
): RunOptions {
  const resolved = resolveConfig(raw, source.newRunId ? { newRunId: source.newRunId } : {});
  if (!resolved.ok) throw new ValidationError("run config", formatAjvErrors(resolved.errors));
  const config = resolved.config;
  const conflicts = [
    ...participantConflicts(config, config.agent !== undefined, { participant: "agent", key: (k) => k }),
    ...interactionProblems(offered, config, "interaction"),
  ];
  if (conflicts.length > 0) throw new ValidationError("run config", conflicts);
  const cwd = source.cwd ?? process.cwd();
  return { ...config, out: source.out !== undefined ? resolve(cwd, source.out) : defaultRunOut(config, cwd) };
}
