/**
 * `a2a-bench smoke [--green URL] [--start] [--scenario DIR] [--benchmark B]
 * [--samples N] [--out FILE] [--timeout S] [--card-timeout S]` — one assessment end to end.
 * `npm start` is `smoke --start`.
 */
import type { CliCommand, CliIo } from "./types.js";
import { UsageError } from "../util/errors.js";
import { defaultScenarioDir } from "../util/package-root.js";
import type { BenchmarkName } from "../benchmarks/index.js";
import { benchmarkNames } from "../benchmarks/index.js";
import { runSmoke, DEFAULT_SMOKE_TIMEOUT_S, type SmokeOptions } from "../smoke/run-smoke.js";
import { parseUsage } from "../util/parse-usage.js";
import { chooseSmokeDisplayMode, createSmokeDisplay } from "../smoke/smoke-display.js";
import { CARD_WAIT_MS } from "../scenario/wait-card.js";
import { LOG_LEVELS, LOG_LEVEL_OPTION, parseLogLevel } from "../util/log-level.js";

export const usage = `Usage: a2a-bench smoke [--start] [--green URL] [--scenario DIR] [--benchmark B] [--samples N] [--out FILE] [--timeout S] [--card-timeout S] [--log-level L] [--json]

Sends one assessment to the green agent over message/stream, as an AgentBeats client does:
{"participants": {<role>: <url>}, "config": {"benchmark": "humaneval", "dataset": "sample"}}.
Shows progress, saves every stream event, extracts and validates the evaluation bundle,
prints run_id, exit_code, metrics, error count and artifact paths.
Exit 0 only when a valid bundle came back from a completed task.

  --start          launch the scenario's agents first, stop them at the end (npm start)
  --green URL      green agent base URL (default: the scenario's green endpoint)
  --scenario DIR   scenario directory (default: the package's scenario_smi/)
  --benchmark B    ${benchmarkNames().join("|")} (default: the scenario's [config], humaneval)
  --samples N      evaluate N items
  --out FILE       response JSON (default: results/smoke/<time>-response.json); the bundle
                   is saved next to it as <name>-evaluation_bundle.json
  --timeout S      bound on the assessment, seconds (default ${DEFAULT_SMOKE_TIMEOUT_S})
  --card-timeout S bound on waiting for the green agent's card before giving up, seconds
                   (default ${CARD_WAIT_MS / 1000}; e.g. 1 to fail fast when no agent should be there)
  --json           print only one JSON summary on stdout (progress lines go to stderr)
  --log-level L    LOG_LEVEL of the agents --start launches: ${LOG_LEVELS.join("|")}
  --version        print the version

On a terminal the progress is a bar (NO_COLOR or a pipe: plain lines, no ANSI).
`;

/** Parse argv (pure). */
export function parseSmokeArgs(argv: string[]): SmokeOptions & { json: boolean } {
  const parsed = parseUsage({
    args: argv,
    allowPositionals: false,
    options: {
      start: { type: "boolean" },
      green: { type: "string" },
      scenario: { type: "string" },
      benchmark: { type: "string" },
      samples: { type: "string" },
      out: { type: "string" },
      timeout: { type: "string" },
      "card-timeout": { type: "string" },
      json: { type: "boolean" },
      ...LOG_LEVEL_OPTION,
    },
  });
  const v = parsed.values;
  if (v.benchmark !== undefined && !benchmarkNames().includes(v.benchmark))
    throw new UsageError(`--benchmark must be one of ${benchmarkNames().join(", ")}, got "${v.benchmark}"`);
  if (v.green !== undefined && !/^https?:\/\/[^/\s]+/.test(v.green))
    throw new UsageError(`--green must be an http(s) URL, got "${v.green}"`);
  const positiveInt = (name: string, s: string | undefined): number | undefined => {
    if (s === undefined) return undefined;
    if (!/^[1-9]\d*$/.test(s)) throw new UsageError(`--${name} must be a positive integer, got "${s}"`);
    return Number(s);
  };
  const positiveSeconds = (name: string, s: string | undefined): number | undefined => {
    if (s === undefined) return undefined;
    const n = s.trim() === "" ? NaN : Number(s);
    if (!(n > 0 && Number.isFinite(n)))
      throw new UsageError(`--${name} must be a positive number of seconds, got "${s}"`);
    return n;
  };
  const timeout = positiveSeconds("timeout", v.timeout);
  const cardTimeout = positiveSeconds("card-timeout", v["card-timeout"]);
  return {
    scenarioDir: v.scenario ?? defaultScenarioDir,
    green: v.green,
    start: v.start ?? false,
    benchmark: v.benchmark as BenchmarkName | undefined,
    samples: positiveInt("samples", v.samples),
    out: v.out,
    timeoutSeconds: timeout,
    cardTimeoutMs: cardTimeout === undefined ? undefined : Math.ceil(cardTimeout * 1000),
    json: v.json ?? false,
    logLevel: parseLogLevel(v["log-level"]),
  };
}

export const command: CliCommand = {
  name: "smoke",
  summary: "send one assessment to the green agent (--start: launch the scenario too) and check the bundle",
  usage,
  async run(argv: string[], io: CliIo): Promise<number> {
    const { json, ...options } = parseSmokeArgs(argv);
    const display = createSmokeDisplay(chooseSmokeDisplayMode(io.stdout, io.env, json), io);
    const ctl = new AbortController();
    // First Ctrl-C: abort the assessment and let `finally` stop the agents; a second one exits hard.
    let interrupted = false;
    const onSignal = (): void => {
      if (interrupted) process.exit(130);
      interrupted = true;
      ctl.abort();
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    try {
      const result = await runSmoke({ ...options, signal: ctl.signal }, io.stdout, display);
      return interrupted ? 130 : result.exitCode;
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
};
