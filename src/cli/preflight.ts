/**
 * `a2a-bench preflight [--scenario DIR] [--benchmark B] [--dataset PATH]
 * [--sandbox S] [--samples N]`: is this machine ready for a full run?
 */
import type { CliCommand, CliIo } from "./types.js";
import { UsageError } from "../util/errors.js";
import { defaultScenarioDir } from "../util/package-root.js";
import type { BenchmarkName } from "../benchmarks/index.js";
import { benchmarkNames } from "../benchmarks/index.js";
import { fullIsolationLevels, sandboxBackendNames, type SandboxBackendName } from "../sandbox/registry.js";
import { defaultPreflightDeps, runPreflight, type PreflightOptions } from "../preflight/run-preflight.js";
import { parseUsage } from "../util/parse-usage.js";
import { schemaDefault } from "../request-config/schema.js";
import { LOG_LEVELS, LOG_LEVEL_OPTION, parseLogLevel } from "../util/log-level.js";

export const usage = `Usage: a2a-bench preflight [--scenario DIR] [--benchmark B] [--dataset PATH] [--sandbox S] [--samples N]
                          [--agent URL] [--allow-weak-isolation] [--log-level L]

Checks, in order, each printed as ✓ or ✗ (with what to do about a ✗):
node version; dataset readable and parseable; sandbox available (runs print(6*7)) at full
isolation (${fullIsolationLevels().join("/")}); the benchmark's tools (python3, bwrap; pytest and git for swebench;
root for RedCode's fixtures; the docker CLI for --sandbox docker); E2B_API_KEY when --sandbox e2b; runner command resolvable
(external smi-inhabit too); the participant's agent card (--agent); scenario ports free or
agents healthy; then one smoke assessment.
Ends with ready_for_full_run=true|false; exit 0 only when true.

  --scenario DIR    scenario directory (default: the package's scenario_smi/)
  --benchmark B     ${benchmarkNames().join("|")} (default humaneval)
  --dataset PATH    sample | humaneval-full | a data file (default sample)
  --sandbox S       ${sandboxBackendNames().join(" | ")} (default ${schemaDefault<string>("sandbox")})
  --samples N       items in the smoke assessment (default 2)
  --agent URL       participant to check (its agent card, under the URL's path)
  --allow-weak-isolation  weak sandbox isolation is a warning, not a ✗ (as with \`green --allow-weak-isolation\`)
  --log-level L     LOG_LEVEL of the agents the smoke assessment starts: ${LOG_LEVELS.join("|")}
`;

/** Parse argv (pure). */
export function parsePreflightArgs(argv: string[]): PreflightOptions {
  const parsed = parseUsage({
    args: argv,
    allowPositionals: false,
    options: {
      scenario: { type: "string" },
      benchmark: { type: "string" },
      dataset: { type: "string" },
      sandbox: { type: "string" },
      samples: { type: "string" },
      agent: { type: "string" },
      "allow-weak-isolation": { type: "boolean" },
      ...LOG_LEVEL_OPTION,
    },
  });
  const v = parsed.values;
  const benchmark = v.benchmark ?? "humaneval";
  if (!benchmarkNames().includes(benchmark))
    throw new UsageError(`--benchmark must be one of ${benchmarkNames().join(", ")}, got "${benchmark}"`);
  const sandbox = v.sandbox ?? schemaDefault<string>("sandbox");
  if (!sandboxBackendNames().includes(sandbox))
    throw new UsageError(`--sandbox must be one of ${sandboxBackendNames().join(", ")}, got "${sandbox}"`);
  if (v.samples !== undefined && !/^[1-9]\d*$/.test(v.samples))
    throw new UsageError(`--samples must be a positive integer, got "${v.samples}"`);
  if (v.dataset === "") throw new UsageError("--dataset must not be empty");
  if (v.agent !== undefined && !/^https?:\/\/\S+$/.test(v.agent))
    throw new UsageError(`--agent must be an http(s) URL, got "${v.agent}"`);
  return {
    scenarioDir: v.scenario ?? defaultScenarioDir,
    benchmark: benchmark as BenchmarkName,
    dataset: v.dataset ?? schemaDefault<string>("dataset"),
    sandbox: sandbox as SandboxBackendName,
    smokeSamples: v.samples === undefined ? 2 : Number(v.samples),
    ...(v.agent !== undefined ? { agent: v.agent } : {}),
    ...(v["allow-weak-isolation"] === true ? { allowWeakIsolation: true } : {}),
    logLevel: parseLogLevel(v["log-level"]),
  };
}

export const command: CliCommand = {
  name: "preflight",
  summary:
    "check node, dataset, sandbox isolation, tools, keys, runner, participant, ports, then run one smoke assessment",
  usage,
  async run(argv: string[], io: CliIo): Promise<number> {
    const options = parsePreflightArgs(argv);
    const report = await runPreflight(options, await defaultPreflightDeps(io.env), io.stdout);
    return report.ready ? 0 : 1;
  },
};
