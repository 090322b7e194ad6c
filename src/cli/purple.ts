/**
 * `a2a-bench purple [--host] [--port] [--card-url] [--mode M] [--model M] [--dataset PATH]...`:
 * serve the purple (participant) agent until SIGTERM/SIGINT.
 */
import { join } from "node:path";
import { constants as osConstants } from "node:os";
import type { CliCommand, CliIo } from "./types.js";
import { UsageError } from "../util/errors.js";
import { createLogger } from "../util/logger.js";
import { loadAgentCard } from "../a2a/card.js";
import { MAX_BODY_ENV, parseMaxBodyBytes } from "../a2a/body-limit.js";
import { serveApp } from "../a2a/serve.js";
import { createPurpleApp } from "../purple/app.js";
import { createSolver, solverModes } from "../purple/solvers/index.js";
import { parseServerArgs, type AgentServerArgs } from "./green.js";

export interface PurpleArgs extends AgentServerArgs {
  mode: string;
  model: string | undefined;
  datasets: string[];
}

/** Pure parse of the purple command line; an unknown mode is a usage error listing the modes. */
export function parsePurpleArgs(argv: string[]): PurpleArgs {
  const { server, values } = parseServerArgs(argv, 9998, {
    mode: { type: "string" },
    model: { type: "string" },
    dataset: { type: "string", multiple: true },
  });
  const mode = (values["mode"] as string | undefined) ?? "echo";
  if (!solverModes().includes(mode)) throw new UsageError(`unknown --mode "${mode}" (known: ${solverModes().join(", ")})`);
  return { ...server, mode, model: values["model"] as string | undefined, datasets: (values["dataset"] as string[] | undefined) ?? [] };
}

export const command: CliCommand = {
  name: "purple",
  summary: "serve the purple (participant) A2A agent",
  usage: `Usage: a2a-bench purple [--host H] [--port P] [--card-url URL] [--scenario DIR] [--mode MODE] [--model M] [--dataset PATH]...

Serve the purple (participant) A2A agent (v0.3 and 1.0 JSON-RPC on one endpoint).
  --host H         bind address (default 127.0.0.1)
  --port P         port (default 9998)
  --card-url URL   URL advertised in the agent card (default http://H:P/)
  --scenario DIR   directory holding purple_agent_card.toml (default: the package's scenario_smi/)
  --mode MODE      solver: ${solverModes().join(", ")} (default echo)
  --model M        model name for LLM-backed modes
  --dataset PATH   dataset for modes that look answers up (repeatable)
  --max-body-bytes N  largest JSON-RPC request body; larger ones get HTTP 413 (default: env A2A_MAX_BODY_BYTES, else 1048576)
`,
  async run(argv: string[], io: CliIo): Promise<number> {
    const args = parsePurpleArgs(argv);
    const maxBodyBytes = args.maxBodyBytes ?? parseMaxBodyBytes(io.env[MAX_BODY_ENV], MAX_BODY_ENV);
    const logger = createLogger({ component: "purple", destination: io.stdout });
    const solver = await createSolver(args.mode, {
      ...(args.model !== undefined ? { model: args.model } : {}),
      datasets: args.datasets,
      env: io.env,
      logger,
    });
    const served = await serveApp(args.host, args.port, async (port) => {
      const card = await loadAgentCard(join(args.scenarioDir, "purple_agent_card.toml"), {
        host: args.host,
        port,
        ...(args.cardUrl ? { cardUrl: args.cardUrl } : {}),
      });
      logger.info({ url: card.supportedInterfaces[0]?.url, mode: solver.mode }, "purple agent listening");
      return createPurpleApp({ card, solver, logger, ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}) });
    });
    return new Promise<number>((resolveExit) => {
      const stop = (signal: NodeJS.Signals) => {
        void served.close().finally(() => resolveExit(128 + (osConstants.signals[signal] ?? 0)));
      };
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });
  },
};
