/** The options every purple solver factory receives (from the purple CLI flags / env). */
import type { Logger } from "../../util/logger.js";
import type { AgentFlagValues } from "./agent-settings.js";
import type { OpenAIFlagValues } from "./openai-settings.js";
import type { EpisodeStoreOptions } from "../interactive/episode-store.js";

/** Options every solver factory receives (from the purple CLI flags / env). */
export interface SolverOptions {
  /** `--model`: model name for LLM-backed modes. */
  model?: string;
  /** `--dataset`: dataset paths for modes that look answers up (repeatable). */
  datasets?: string[];
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** `openai` and `agent` modes' checked flags (sampling, client timeout/retries, base URL). */
  openai?: OpenAIFlagValues;
  /** `agent` mode's checked limits (steps, cost, prices). */
  agent?: AgentFlagValues;
  /** `--trajectory`: the recorded actions the `replay` mode plays back (replay-trajectory.ts). */
  trajectory?: string;
  /** Bounds of the per-context episode state of interactive modes (default: episode-store.ts). */
  episodes?: EpisodeStoreOptions;
}
