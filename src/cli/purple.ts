/**
 * `a2a-bench purple [--host] [--port] [--card-url] [--mode M] [--model M] [--dataset PATH]... [openai flags]`:
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
import {
  DEFAULT_EMPTY_REPLY_RETRIES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  OPENAI_FLAG_OPTIONS,
  givenOpenAIFlags,
  parseOpenAIFlags,
  type OpenAIFlagValues,
} from "../purple/solvers/openai-settings.js";

export interface PurpleArgs extends AgentServerArgs {
  mode: string;
  model: string | undefined;
  datasets: string[];
  /** Checked `openai` mode flags (empty for other modes). */
  openai: OpenAIFlagValues;
}

/** Pure parse of the purple command line; an unknown mode is a usage error listing the modes. */
export function parsePurpleArgs(argv: string[]): PurpleArgs {
  const { server, values } = parseServerArgs(argv, 9998, {
    mode: { type: "string" },
    model: { type: "string" },
    dataset: { type: "string", multiple: true },
    ...OPENAI_FLAG_OPTIONS,
  });
  const mode = (values["mode"] as string | undefined) ?? "echo";
  if (!solverModes().includes(mode))
    throw new UsageError(`unknown --mode "${mode}" (known: ${solverModes().join(", ")})`);
  const openaiOnly = givenOpenAIFlags(values);
  if (mode !== "openai" && openaiOnly.length > 0) {
    throw new UsageError(
      `${openaiOnly.join(", ")} ${openaiOnly.length > 1 ? "apply" : "applies"} to --mode openai only`,
    );
  }
  return {
    ...server,
    mode,
    model: values["model"] as string | undefined,
    datasets: (values["dataset"] as string[] | undefined) ?? [],
    openai: parseOpenAIFlags(values),
  };
}

export const command: CliCommand = {
  name: "purple",
  summary: "serve the purple (participant) A2A agent",
  usage: `Usage: a2a-bench purple [--host H] [--port P] [--card-url URL] [--scenario DIR] [--mode MODE] [--model M] [--dataset PATH]... [openai flags]

Serve the purple (participant) A2A agent (JSON-RPC and HTTP+JSON, v0.3 and 1.0, on one base URL).
  --host H         bind address (default 127.0.0.1)
  --port P         port (default 9998)
  --card-url URL   URL advertised in the agent card (default http://H:P/)
  --scenario DIR   directory holding purple_agent_card.toml (default: the package's scenario_smi/)
  --mode MODE      solver: ${solverModes().join(", ")} (default echo)
  --model M        model name for LLM-backed modes
  --dataset PATH   dataset for modes that look answers up (repeatable)
  --max-body-bytes N  largest request body; larger ones get HTTP 413 (default: env A2A_MAX_BODY_BYTES, else 1048576)

openai mode (an OpenAI-compatible chat-completions server; one completion per request):
  --model M                    model name (default: env OPENAI_MODEL); key from env OPENAI_API_KEY
  --base-url URL               e.g. http://127.0.0.1:8000/v1 (default: env OPENAI_BASE_URL, else https://api.openai.com/v1)
  --temperature T              0-2 (default: the server's)
  --top-p P                    (0, 1] (default: the server's)
  --max-tokens N               completion token limit, sent as max_tokens
  --max-completion-tokens N    the same for reasoning models, sent as max_completion_tokens (exclusive with --max-tokens)
  --seed N                     sample i of a task is sent seed N+i
  --system-prompt TEXT         system message ("" sends none; default: a short code-task instruction)
  --timeout-seconds S          one request's time limit (default: env OPENAI_TIMEOUT_SECONDS, else ${DEFAULT_TIMEOUT_SECONDS})
  --max-retries N              retries of 429/408/409/5xx/connection errors/timeouts (default: env OPENAI_MAX_RETRIES, else ${DEFAULT_MAX_RETRIES})
  --empty-reply-retries N      extra asks when a reply has no content (default ${DEFAULT_EMPTY_REPLY_RETRIES})
`,
  async run(argv: string[], io: CliIo): Promise<number> {
    const args = parsePurpleArgs(argv);
    const maxBodyBytes = args.maxBodyBytes ?? parseMaxBodyBytes(io.env[MAX_BODY_ENV], MAX_BODY_ENV);
    const logger = createLogger({ component: "purple", destination: io.stdout });
    const solver = await createSolver(args.mode, {
      ...(args.model !== undefined ? { model: args.model } : {}),
      datasets: args.datasets,
      openai: args.openai,
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
