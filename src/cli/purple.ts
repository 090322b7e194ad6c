/**
 * `a2a-bench purple [--host] [--port] [--card-url] [--mode M] [--model M] [--dataset PATH]... [--trajectory FILE] [openai flags] [agent flags]`:
 * serve the purple (participant) agent until SIGTERM/SIGINT.
 */
import { join } from "node:path";
import { constants as osConstants } from "node:os";
import type { A2ARequestHandler } from "@a2a-js/sdk/server";
import type { CliCommand, CliIo } from "./types.js";
import { UsageError } from "../util/errors.js";
import { LOG_LEVEL_USAGE } from "../util/log-level.js";
import { createLogger } from "../util/logger.js";
import { loadAgentCard } from "../a2a/shared/card.js";
import { MAX_BODY_ENV, parseMaxBodyBytes } from "../a2a/server/body-limit.js";
import { serveApp } from "../a2a/server/serve.js";
import { closeGrpcOnFailure, grpcBinding } from "./grpc-binding.js";
import { createPurpleApp } from "../purple/app.js";
import { createSolver, solverModes } from "../purple/solvers/index.js";
import { parseServerArgs, type AgentServerArgs } from "./server-args.js";
import {
  DEFAULT_EMPTY_REPLY_RETRIES,
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_SECONDS,
  OPENAI_FLAG_OPTIONS,
  givenOpenAIFlags,
  parseOpenAIFlags,
  type OpenAIFlagValues,
} from "../purple/solvers/openai-settings.js";
import {
  AGENT_FLAG_OPTIONS,
  DEFAULT_MAX_STEPS,
  givenAgentFlags,
  parseAgentFlags,
  type AgentFlagValues,
} from "../purple/solvers/agent-settings.js";

export interface PurpleArgs extends AgentServerArgs {
  mode: string;
  model: string | undefined;
  datasets: string[];
  /** Checked `openai` / `agent` mode flags (empty for other modes). */
  openai: OpenAIFlagValues;
  /** Checked `agent` mode limits (empty for other modes). */
  agent: AgentFlagValues;
  /** `replay` mode's recorded trajectory. */
  trajectory: string | undefined;
}

/** Modes that talk to a chat-completions server (and so take the openai flags). */
const CHAT_MODES = ["openai", "agent"];

/** Flags given to a mode they do not apply to are a usage error. */
function checkModeFlags(mode: string, values: Record<string, unknown>): void {
  const misplaced: Array<[string[], string]> = [
    [CHAT_MODES.includes(mode) ? [] : givenOpenAIFlags(values), "--mode openai or agent"],
    [mode === "agent" ? [] : givenAgentFlags(values), "--mode agent"],
    [mode === "replay" || values["trajectory"] === undefined ? [] : ["--trajectory"], "--mode replay"],
  ];
  for (const [flags, where] of misplaced) {
    if (flags.length > 0)
      throw new UsageError(`${flags.join(", ")} ${flags.length > 1 ? "apply" : "applies"} to ${where} only`);
  }
}

/** Pure parse of the purple command line; an unknown mode is a usage error listing the modes. */
export function parsePurpleArgs(argv: string[]): PurpleArgs {
  const { server, values } = parseServerArgs(argv, 9998, {
    mode: { type: "string" },
    model: { type: "string" },
    dataset: { type: "string", multiple: true },
    trajectory: { type: "string" },
    ...OPENAI_FLAG_OPTIONS,
    ...AGENT_FLAG_OPTIONS,
  });
  const mode = (values["mode"] as string | undefined) ?? "echo";
  if (!solverModes().includes(mode))
    throw new UsageError(`unknown --mode "${mode}" (known: ${solverModes().join(", ")})`);
  checkModeFlags(mode, values);
  const trajectory = values["trajectory"] as string | undefined;
  if (mode === "replay" && trajectory === undefined) throw new UsageError("--mode replay needs --trajectory FILE");
  return {
    ...server,
    mode,
    model: values["model"] as string | undefined,
    datasets: (values["dataset"] as string[] | undefined) ?? [],
    openai: parseOpenAIFlags(values),
    agent: parseAgentFlags(values),
    trajectory,
  };
}

export const command: CliCommand = {
  name: "purple",
  summary: "serve the purple (participant) A2A agent",
  usage: `Usage: a2a-bench purple [--host H] [--port P] [--grpc-port P] [--card-url URL] [--scenario DIR] [--mode MODE] [--model M] [--dataset PATH]... [--trajectory FILE] [--log-level L] [openai flags] [agent flags]

Serve the purple (participant) A2A agent (JSON-RPC and HTTP+JSON, v0.3 and 1.0, on one base URL).
  --host H         bind address (default 127.0.0.1)
  --port P         port (default 9998)
  --grpc-port P    also serve the gRPC binding on this port (0 = a free one; listed in the card); default: off
  --card-url URL   URL advertised in the agent card (default http://H:P/)
  --scenario DIR   directory holding purple_agent_card.toml (default: the package's scenario_smi/)
  --mode MODE      solver: ${solverModes().join(", ")} (default echo)
  --model M        model name for LLM-backed modes
  --dataset PATH   dataset for modes that look answers up (repeatable)
  --trajectory FILE  replay mode: the recorded actions to play back (JSONL, {"action": {...}} per line)
  --max-body-bytes N  largest request body; larger ones get HTTP 413 (default: env A2A_MAX_BODY_BYTES, else 1048576)
${LOG_LEVEL_USAGE}

Interactive assessments (terminal-bench-shell-v1: a JSON task, then exec_results, one A2A task per turn in one
context): echo finals at once, gold applies the reference answer through commands, replay plays --trajectory back,
agent runs a bash-tool loop on the chat server below. Other messages are answered single-shot as before.

openai and agent modes (an OpenAI-compatible chat-completions server; openai: one completion per request):
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

agent mode (one bash tool and a submit tool; the default system prompt explains them):
  --max-steps N                model calls per episode (default ${DEFAULT_MAX_STEPS})
  --input-price USD            USD per million prompt tokens (with --output-price: the cost is reported)
  --output-price USD           USD per million completion tokens
  --max-cost USD               end the episode at this cost (needs both prices and usage from the server)
`,
  async run(argv: string[], io: CliIo): Promise<number> {
    const args = parsePurpleArgs(argv);
    const maxBodyBytes = args.maxBodyBytes ?? parseMaxBodyBytes(io.env[MAX_BODY_ENV], MAX_BODY_ENV);
    const logger = createLogger({
      component: "purple",
      destination: io.stdout,
      ...(args.logLevel ? { level: args.logLevel } : {}),
    });
    const solver = await createSolver(args.mode, {
      ...(args.model !== undefined ? { model: args.model } : {}),
      datasets: args.datasets,
      openai: args.openai,
      agent: args.agent,
      ...(args.trajectory !== undefined ? { trajectory: args.trajectory } : {}),
      env: io.env,
      logger,
    });
    // The gRPC port is bound first, so that the card can name it; its calls are answered once the app exists.
    const grpc = await grpcBinding(args, logger, maxBodyBytes);
    const served = await closeGrpcOnFailure(
      serveApp(args.host, args.port, async (port) => {
        const card = await loadAgentCard(join(args.scenarioDir, "purple_agent_card.toml"), {
          host: args.host,
          port,
          ...(grpc ? { grpcPort: grpc.port } : {}),
          ...(args.cardUrl ? { cardUrl: args.cardUrl } : {}),
        });
        logger.info(
          { url: card.supportedInterfaces[0]?.url, grpcPort: grpc?.port, mode: solver.mode },
          "purple agent listening",
        );
        return createPurpleApp({
          card,
          solver,
          logger,
          ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
          ...(grpc ? { onRequestHandler: (handler: A2ARequestHandler) => grpc.serve(handler) } : {}),
        });
      }),
      grpc,
    );
    return new Promise<number>((resolveExit) => {
      const stop = (signal: NodeJS.Signals) => {
        void Promise.all([served.close(), grpc?.close()]).finally(() =>
          resolveExit(128 + (osConstants.signals[signal] ?? 0)),
        );
      };
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });
  },
};
