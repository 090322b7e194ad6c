/**
 * The real dependencies of a run, shared by every entry (the CLI, the
 * library's runBenchmark, the SPARC functions): the sandbox the config names
 * (its hidden paths, concurrency, owner and the backend's own options from the
 * same resolved options) and the A2A participant at `agent`.
 */
import type { Logger } from "../util/logger.js";
import type { Sandbox } from "../sandbox/types.js";
import type { Participant } from "../a2a/shared/participant.js";
import { createA2AParticipant } from "../a2a/client/participant-client.js";
import { maxReplyBytes } from "../a2a/client/reply-limit.js";
import type { RunOptions } from "./options.js";
import { sandboxHiddenPaths } from "./sandbox-hidden-paths.js";

/** The sandbox of a run with `options` (backend, concurrency, hidden paths, owner = run id, the backend's own options). */
export async function openRunSandbox(options: RunOptions, logger: Logger): Promise<Sandbox> {
  // Imported lazily so `run --help` and the library's import do not load the sandbox backends.
  const { createSandbox, sandboxBackend } = await import("../sandbox/index.js");
  const backendOptions = sandboxBackend(options.sandbox).runOptions?.(options);
  return createSandbox({
    backend: options.sandbox,
    logger,
    concurrency: options.concurrency,
    owner: options.run_id,
    ...(backendOptions !== undefined ? { backendOptions } : {}),
    hiddenPaths: sandboxHiddenPaths(options),
  });
}

/**
 * The A2A participant of a run: `agent`, each answer bounded by
 * `agent_timeout_seconds`, each reply by the run's reply cap (config, else env,
 * else the default; a bad env value throws BenchError `E_SETTING`).
 */
export function openRunParticipant(
  options: RunOptions & { agent: string },
  logger: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Participant {
  return createA2AParticipant({
    url: options.agent,
    timeoutMs: options.agent_timeout_seconds * 1000,
    maxReplyBytes: maxReplyBytes(options.max_participant_reply_bytes, env),
    logger,
  });
}
