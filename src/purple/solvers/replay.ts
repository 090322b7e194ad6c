/**
 * `replay` mode: play a recorded trajectory back (`--trajectory FILE`,
 * replay-trajectory.ts): each interactive episode sends the recorded actions
 * in order, whatever comes back, then `final` if the recording has none. A
 * rerun of an assessment against it shows whether the environment and the
 * grader still give the recorded episode the same score. Messages of no
 * interactive protocol are an error (there is nothing to replay for them).
 */
import { createInteractiveSolver, type InteractiveSolver } from "../interactive/interactive-solver.js";
import { finalStep, type Episode, type EpisodeStep } from "../interactive/episode.js";
import type { ParticipantAction } from "../interactive/assessor-message.js";
import { UsageError } from "../../util/errors.js";
import type { SolverOptions } from "./options.js";
import { loadTrajectory } from "./replay-trajectory.js";

/** A fresh episode over `actions` (shared, never mutated). */
export function replayEpisode(actions: readonly ParticipantAction[]): Episode {
  let sent = 0;
  const nextStep = (): Promise<EpisodeStep> => {
    const action = actions[sent];
    if (action === undefined)
      return Promise.resolve(finalStep(undefined, { replay_step: sent, replay_steps: actions.length }));
    sent += 1;
    return Promise.resolve({ action, metadata: { replay_step: sent, replay_steps: actions.length } });
  };
  return { start: nextStep, next: nextStep };
}

/** Create the replay solver from options (`trajectory` is required). */
export async function createReplaySolver(options: SolverOptions = {}): Promise<InteractiveSolver> {
  if (options.trajectory === undefined) throw new UsageError("replay mode needs --trajectory FILE");
  const actions = await loadTrajectory(options.trajectory);
  return createInteractiveSolver("replay", () => replayEpisode(actions), { ...options.episodes });
}
