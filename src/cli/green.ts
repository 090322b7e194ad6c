/**
 * `a2a-bench green [--host H] [--port P] [--card-url URL] [--scenario DIR]`:
 * serve the green (assessor) agent until SIGTERM/SIGINT.
 */
import { join } from "node:path";
import type { CliCommand, CliIo } from "./types.js";
import { errorMessage } from "../util/errors.js";
import { createLogger } from "../util/logger.js";
import { loadAgentCard } from "../a2a/shared/card.js";
import { serveApp } from "../a2a/server/serve.js";
import { closeGrpcOnFailure, grpcBinding } from "./grpc-binding.js";
import { createGreenApp } from "../green/app.js";
import { isolationSentence, probeLocalIsolation, type IsolationReport } from "../green/isolation.js";
import { exposureVerdict } from "../green/exposure.js";
import { isFullIsolation } from "../runner/isolation-policy.js";
import { BenchError } from "../util/errors.js";
import { installShutdownHandlers } from "../green/shutdown.js";
import { settingsFromEnv, unknownSettingWarnings } from "../green/settings.js";
import { parseServerArgs, type AgentServerArgs } from "./server-args.js";
import { LOG_LEVEL_USAGE } from "../util/log-level.js";

export interface GreenArgs extends AgentServerArgs {
  /** `--allow-weak-isolation` (same as GREEN_ALLOW_WEAK_ISOLATION=1). */
  allowWeakIsolation: boolean;
  /** `--allow-unauthenticated` (same as GREEN_ALLOW_UNAUTHENTICATED=1). */
  allowUnauthenticated: boolean;
}

/** Pure parse of the green command line. */
export function parseGreenArgs(argv: string[]): GreenArgs {
  const { server, values } = parseServerArgs(argv, 9999, {
    "allow-weak-isolation": { type: "boolean" },
    "allow-unauthenticated": { type: "boolean" },
  });
  return {
    ...server,
    allowWeakIsolation: values["allow-weak-isolation"] === true,
    allowUnauthenticated: values["allow-unauthenticated"] === true,
  };
}

const usage = `Usage: a2a-bench green [--host H] [--port P] [--grpc-port P] [--card-url URL] [--scenario DIR] [--log-level L]

Serve the green (assessor) A2A agent (JSON-RPC and HTTP+JSON, v0.3 and 1.0, on one base URL).
  --host H         bind address (default 127.0.0.1; AgentBeats passes 0.0.0.0)
  --port P         port (default 9999)
  --grpc-port P    also serve the gRPC binding on this port (0 = a free one; listed in the card); default: off
  --card-url URL   URL advertised in the agent card (default http://H:P/)
  --scenario DIR   directory holding green_agent_card.toml (default: the package's scenario_smi/)
  --max-body-bytes N  largest JSON-RPC request body; larger ones get HTTP 413 (default: env A2A_MAX_BODY_BYTES, else 1048576)
  --allow-weak-isolation   let A2A requests run untrusted code below full isolation (bwrap/e2b/docker); default: refused
  --allow-unauthenticated  listen beyond loopback without GREEN_AUTH_TOKEN; default: refused
${LOG_LEVEL_USAGE} (its runners get it too)
Environment: GREEN_AUTH_TOKEN (bearer auth on every binding, gRPC metadata too; the card stays public), A2A_MAX_BODY_BYTES, GREEN_MAX_CONCURRENT_TASKS,
GREEN_MAX_QUEUED_TASKS, GREEN_RESULTS_DIR, GREEN_ALLOWED_ROOTS, GREEN_ALLOW_WEAK_ISOLATION, GREEN_ALLOW_UNAUTHENTICATED,
GREEN_CANCEL_GRACE_SECONDS, GREEN_HEARTBEAT_SECONDS, GREEN_RUNNER_TIMEOUT_SECONDS,
GREEN_RUNNER_ENV_ALLOW, GREEN_SMI_INHABIT_COMMAND, A2A_BENCH_DATASETS, LOG_LEVEL.
`;

export const command: CliCommand = {
  name: "green",
  summary: "serve the green (assessor) A2A agent",
  usage,
  async run(argv: string[], io: CliIo): Promise<number> {
    const args = parseGreenArgs(argv);
    const envSettings = settingsFromEnv(io.env); // validate env settings at the entry
    // The isolation probe (child processes, which would compete with start-up for the CPU) starts once the
    // port is bound and the app in place, and is not waited for: the card is served meanwhile. /health says
    // "probing" until it answers; requests that need its answer (an assessment in the local sandbox) wait
    // for it, so weak isolation is still refused (fail closed).
    let startProbe!: () => void;
    const probing = new Promise<IsolationReport>((resolveProbe, rejectProbe) => {
      startProbe = () => {
        probeLocalIsolation().then(resolveProbe, rejectProbe);
      };
    });
    probing.catch(() => {
      /* surfaced where it is awaited: /health, the executor */
    });
    const allowWeakIsolation = args.allowWeakIsolation || envSettings.allowWeakIsolation;
    const allowUnauthenticated = args.allowUnauthenticated || envSettings.allowUnauthenticated;
    const logger = createLogger({
      component: "green",
      destination: io.stdout,
      ...(args.logLevel ? { level: args.logLevel } : {}),
    });
    for (const warning of unknownSettingWarnings(io.env)) {
      io.stderr.write(`${warning}\n`);
      logger.warn(warning);
    }
    const exposure = exposureVerdict(args.host, envSettings.authToken !== undefined, allowUnauthenticated);
    if (exposure.kind === "refuse") throw new BenchError("E_EXPOSED", exposure.message);
    if (exposure.kind === "warn") {
      io.stderr.write(`${exposure.message}\n`);
      logger.warn(exposure.message);
    }
    let green: ReturnType<typeof createGreenApp> | undefined;
    // Set once a signal asked us to stop: a probe that answers after that does not announce "ready".
    let stopping = false;
    // The gRPC port is bound first, so that the card can name it; its calls are answered once the app exists.
    const grpc = await grpcBinding(args, logger, args.maxBodyBytes);
    const starting = serveApp(args.host, args.port, async (port) => {
      const card = await loadAgentCard(join(args.scenarioDir, "green_agent_card.toml"), {
        host: args.host,
        port,
        ...(grpc ? { grpcPort: grpc.port } : {}),
        ...(args.cardUrl ? { cardUrl: args.cardUrl } : {}),
      });
      green = createGreenApp({
        card,
        // --log-level reaches the runners too (LOG_LEVEL is on their allow-list).
        env: args.logLevel ? { ...io.env, LOG_LEVEL: args.logLevel } : io.env,
        logger,
        isolation: probing,
        settings: {
          allowWeakIsolation,
          allowUnauthenticated,
          ...(args.maxBodyBytes !== undefined ? { maxBodyBytes: args.maxBodyBytes } : {}),
        },
      });
      grpc?.serve(green.requestHandler, { authToken: green.settings.authToken });
      const url = card.supportedInterfaces[0]?.url;
      logger.info({ url, host: args.host, port, allowWeakIsolation }, "green agent listening; isolation probe running");
      probing.then(
        (isolation) => {
          if (stopping) return;
          const sentence = isolationSentence(isolation, allowWeakIsolation);
          if (!isFullIsolation(isolation.level)) io.stderr.write(`WARNING: ${sentence}\n`);
          logger.info({ url, isolation: isolation.level, allowWeakIsolation }, `green agent ready. ${sentence}`);
        },
        (err: unknown) => logger.error({ err: errorMessage(err) }, "isolation probe failed (see /health)"),
      );
      return green.app;
    });
    const served = await closeGrpcOnFailure(starting, grpc);
    // After the requests held during start-up (an orchestrator polling the card) have been dispatched.
    setImmediate(startProbe);
    return new Promise<number>((resolveExit) => {
      installShutdownHandlers(
        {
          shutdown: () => {
            stopping = true;
            return green!.shutdown();
          },
          close: () => Promise.all([served.close(), grpc?.close()]).then(() => undefined),
        },
        logger,
        resolveExit,
      );
    });
  },
};
