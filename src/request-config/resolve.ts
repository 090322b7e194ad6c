/**
 * The one validator and resolver of the request config. Ajv checks a config
 * against `schemas/assessment_request.schema.json` and applies its defaults;
 * then the values every run needs fixed are derived (run id, shard,
 * concurrency, participant_concurrency, `samples` from its alias
 * `num_instances`). This is the one place defaults are applied: code that
 * holds a {@link ResolvedConfig} reads them, it never restates them.
 * Resolving is idempotent: a resolved config comes back unchanged, so the
 * runner may check the file the green agent wrote without changing it.
 *
 * No type coercion here: a JSON config has real types, and the runner's CLI
 * converts its flag strings itself (runner/run-args.ts). Problems come back as
 * Ajv errors so each boundary words them for its own input (request key,
 * CLI flag, TOML line).
 */
import { availableParallelism } from "node:os";
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { WHOLE_SCHEMA, loadValidators } from "../util/schema.js";
import type { AssessmentConfig, ResolvedConfig, SchemaDefaultedKey } from "./config.js";
import { generateRunId } from "./run-id.js";
import { CONFIG_SCHEMA_FILE } from "./schema.js";

/**
 * Default participant requests in flight per unit of `concurrency`. Measured
 * with `run humaneval` (164 gold answers, loopback purple, 2 cores, medians of
 * 5 interleaved runs): 2 / 4 / 8 / 16 items in flight → 2346 / 2173 / 2021 /
 * 2199 ms; past 8 the purple, the runner and the sandbox only contend for the
 * cores. A remote model with seconds of latency wants it set higher.
 */
export const PARTICIPANT_LANES_PER_SLOT = 4;

// Its own validator: it applies defaults in place, getValidator's must not. Loaded on first use
// (generated at build, see util/schema.ts).
let validator: ValidateFunction | undefined;
const configValidator = (): ValidateFunction =>
  (validator ??= loadValidators({ file: CONFIG_SCHEMA_FILE, useDefaults: true }).validators[WHOLE_SCHEMA]!);

export type ConfigResolution = { ok: true; config: ResolvedConfig } | { ok: false; errors: ErrorObject[] };

export interface ResolveOptions {
  /** Run id for a config without one; default {@link generateRunId} of the benchmark name. */
  newRunId?: (benchmark: string) => string;
}

/** Check `raw` against the schema as given (nothing applied, `raw` untouched); empty = valid. */
export function checkConfig(raw: unknown): ErrorObject[] {
  const validate = configValidator();
  return validate(structuredClone(raw)) ? [] : [...(validate.errors ?? [])];
}

/** Check `raw` and resolve it (see the module note). `raw` is not modified. */
export function resolveConfig(raw: unknown, options: ResolveOptions = {}): ConfigResolution {
  const value: unknown = structuredClone(raw);
  const validate = configValidator();
  if (!validate(value)) return { ok: false, errors: [...(validate.errors ?? [])] };
  // Ajv applied every schema default in place (useDefaults).
  const config = value as AssessmentConfig & Required<Pick<AssessmentConfig, SchemaDefaultedKey>>;
  const concurrency = config.concurrency ?? availableParallelism();
  const samples = config.samples ?? config.num_instances;
  return {
    ok: true,
    config: {
      ...config,
      ...(samples === undefined ? {} : { samples }),
      run_id: config.run_id ?? (options.newRunId ?? generateRunId)(config.benchmark),
      // Not sharded unless the request says so (the schema has no default: its table shows none).
      shard_index: config.shard_index ?? 0,
      num_shards: config.num_shards ?? 1,
      concurrency,
      participant_concurrency: config.participant_concurrency ?? PARTICIPANT_LANES_PER_SLOT * concurrency,
    },
  };
}
