/**
 * The options every agent server takes (`--host --port --grpc-port --card-url
 * --scenario --max-body-bytes`), parsed for the green and the purple alike. Its own module
 * so that the purple's start does not load the green's app, executor and
 * bundle code to parse its flags.
 */
import type { ParseArgsConfig } from "node:util";
import { resolve } from "node:path";
import { UsageError, errorMessage } from "../util/errors.js";
import { parseMaxBodyBytes } from "../a2a/server/body-limit.js";
import { defaultScenarioDir } from "../util/package-root.js";
import { parseUsage } from "../util/parse-usage.js";
import { LOG_LEVEL_OPTION, parseLogLevel, type LogLevel } from "../util/log-level.js";

export interface AgentServerArgs {
  host: string;
  port: number;
  /** `--grpc-port`: serve the gRPC binding there too (0 = a free port); undefined = no gRPC. */
  grpcPort: number | undefined;
  cardUrl: string | undefined;
  scenarioDir: string;
  /** `--max-body-bytes`; undefined → env A2A_MAX_BODY_BYTES or the 1 MiB default. */
  maxBodyBytes: number | undefined;
  /** `--log-level`; undefined → env LOG_LEVEL, else info. */
  logLevel: LogLevel | undefined;
}

/** Parse `--host --port --card-url --scenario` (shared by green and purple). */
export function parseServerArgs(argv: string[], defaultPort: number, extra: ParseArgsConfig["options"] = {}) {
  const parsed = parseUsage({
    args: argv,
    allowPositionals: false,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      "grpc-port": { type: "string" },
      "card-url": { type: "string" },
      scenario: { type: "string" },
      "max-body-bytes": { type: "string" },
      ...LOG_LEVEL_OPTION,
      ...extra,
    },
  });
  const v = parsed.values as Record<string, string | string[] | boolean | undefined>;
  const port = parsePort("--port", (v["port"] as string | undefined) ?? String(defaultPort));
  const grpcRaw = v["grpc-port"] as string | undefined;
  const grpcPort = grpcRaw === undefined ? undefined : parsePort("--grpc-port", grpcRaw);
  if (grpcPort !== undefined && grpcPort !== 0 && grpcPort === port)
    throw new UsageError(`--grpc-port must differ from --port (both ${port})`);
  const cardUrl = v["card-url"] as string | undefined;
  if (cardUrl !== undefined && !/^https?:\/\/\S+$/.test(cardUrl))
    throw new UsageError(`--card-url must be an http(s) URL, got "${cardUrl}"`);
  const server: AgentServerArgs = {
    host: (v["host"] as string | undefined) ?? "127.0.0.1",
    port,
    grpcPort,
    cardUrl,
    maxBodyBytes: parseMaxBodyBytesArg(v["max-body-bytes"] as string | undefined),
    scenarioDir: resolve((v["scenario"] as string | undefined) ?? defaultScenarioDir),
    logLevel: parseLogLevel(v["log-level"] as string | undefined),
  };
  return { server, values: v };
}

function parsePort(flag: string, raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new UsageError(`${flag} must be an integer 0-65535, got "${raw}"`);
  return port;
}

function parseMaxBodyBytesArg(raw: string | undefined): number | undefined {
  try {
    return parseMaxBodyBytes(raw, "--max-body-bytes");
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
}
