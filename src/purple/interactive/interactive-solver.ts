/**
 * A purple mode that plays `terminal-bench-shell-v1` episodes: a message of
 * that protocol goes to the context's episode (a `task` starts one), any
 * other message to the mode's single-shot solver, so assessments that ask
 * one question per task are unaffected.
 *
 * AgentSWE's green speaks its own dialect; its messages are translated to
 * the protocol's and the steps answered its way (agentswe.ts).
 *
 * A turn that throws ends the task `failed` and the episode with it (RDI's
 * greens end an episode on any final state other than `completed`).
 */
import type { Solver, SolverInput, SolverReply } from "../solver.js";
import type { Episode, EpisodeFactory, EpisodeStep } from "./episode.js";
import { EpisodeStore, type EpisodeStoreOptions } from "./episode-store.js";
import { encodeTurnMessage, PROTOCOL_NAME } from "../../interactive/protocol.js";
import { decodeAssessorMessage, InteractiveTurnError } from "./assessor-message.js";
import { agentSweReply, decodeAgentSweMessage } from "./agentswe.js";
import type { AssessorMessage } from "../../interactive/protocol.js";

/** The green's message as the episode's own, and how to answer it (AgentSWE's way or the protocol's). */
function readMessage(text: string): { message: AssessorMessage; agentSwe: boolean } | undefined {
  const own = decodeAssessorMessage(text);
  if (own) return { message: own, agentSwe: false };
  const agentSwe = decodeAgentSweMessage(text);
  if (!agentSwe) return undefined;
  return { message: agentSwe.kind === "task" ? agentSwe.task : agentSwe.result, agentSwe: true };
}

export interface InteractiveSolverOptions extends EpisodeStoreOptions {
  /** Answers messages of no interactive protocol; without it they are an error naming the mode. */
  singleShot?: Solver;
}

/** The reply of one turn: the action as the reply's only text; usage and facts in its metadata. */
export function stepReply(step: EpisodeStep): SolverReply {
  return {
    text: encodeTurnMessage(step.action),
    ...(step.usage ? { usage: step.usage } : {}),
    metadata: { protocol: PROTOCOL_NAME, ...step.metadata },
  };
}

/** A Solver that keeps episodes; `activeEpisodes` is how many it holds now. */
export interface InteractiveSolver extends Solver {
  readonly activeEpisodes: number;
}

/** Wrap `newEpisode` (and the mode's single-shot solver) as one Solver of `mode`. */
export function createInteractiveSolver(
  mode: string,
  newEpisode: EpisodeFactory,
  options: InteractiveSolverOptions = {},
): InteractiveSolver {
  const store = new EpisodeStore<Episode>(options);
  const { singleShot } = options;
  return {
    mode,
    async solve(input: SolverInput, signal: AbortSignal): Promise<SolverReply> {
      const read = readMessage(input.text);
      if (!read) {
        if (singleShot) return singleShot.solve(input, signal);
        throw new InteractiveTurnError(
          `${mode} mode answers only ${PROTOCOL_NAME} messages (a JSON \`task\`, then \`exec_result\`s)`,
        );
      }
      const { message, agentSwe } = read;
      const contextId = input.contextId;
      if (contextId === undefined || contextId === "")
        throw new InteractiveTurnError("an interactive turn needs a contextId");
      let episode: Episode | undefined;
      if (message.kind === "task") {
        episode = newEpisode();
        store.begin(contextId, episode);
      } else {
        episode = store.acquire(contextId);
        if (!episode)
          throw new InteractiveTurnError(
            `no episode in context ${contextId} (never started with a \`task\`, already final, or expired)`,
          );
      }
      let keep = false;
      try {
        const step =
          message.kind === "task"
            ? await episode.start(message, signal, agentSwe ? { finalPatch: true } : {})
            : await episode.next(message, signal);
        keep = step.action.kind !== "final";
        return agentSwe ? agentSweReply(step) : stepReply(step);
      } finally {
        store.release(contextId, keep);
      }
    },
    get activeEpisodes() {
      return store.size;
    },
  };
}
