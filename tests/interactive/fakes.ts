/** In-memory participant and environment for the episode tests. */
import type { Message, Task } from "@a2a-js/sdk";
import type { TurnSender } from "../../src/interactive/a2a-sender.js";
import type { CommandOutcome, EpisodeEnvironment } from "../../src/interactive/episode-environment.js";
import type { TrajectoryLine, TrajectorySink } from "../../src/interactive/trajectory.js";
import { joinedText } from "../../src/a2a/shared/parts.js";

export type Reply = Message | Task | ((signal: AbortSignal) => Promise<Message | Task>);

/** A participant answering from a script, one reply per turn; records every message it got. */
export class ScriptedSender implements TurnSender {
  readonly received: Message[] = [];
  constructor(private readonly script: Reply[]) {}

  /** The JSON payloads received, parsed. */
  payloads(): Record<string, unknown>[] {
    return this.received.map((m) => JSON.parse(joinedText(m.parts)) as Record<string, unknown>);
  }

  send(message: Message, signal: AbortSignal): Promise<Message | Task> {
    this.received.push(message);
    const next = this.script[this.received.length - 1];
    if (next === undefined) return Promise.reject(new Error(`script has no reply for turn ${this.received.length}`));
    return typeof next === "function" ? next(signal) : Promise.resolve(next);
  }
}

/** A participant that never answers and ignores the signal it is given. */
export const never = (): Promise<never> => new Promise(() => {});

export function outcome(o: Partial<CommandOutcome> = {}): CommandOutcome {
  return { exitCode: 0, stdout: "", stderr: "", timedOut: false, durationMs: 5, ...o };
}

/** An environment answering each command from `answer`; records commands and their timeouts. */
export class FakeEnvironment implements EpisodeEnvironment {
  readonly runs: { command: string; timeoutS: number }[] = [];
  constructor(
    private readonly answer: (command: string, signal: AbortSignal) => Promise<CommandOutcome> | CommandOutcome = () =>
      outcome(),
  ) {}

  async run(command: string, timeoutS: number, signal: AbortSignal): Promise<CommandOutcome> {
    this.runs.push({ command, timeoutS });
    return this.answer(command, signal);
  }
}

export class MemoryTrajectory implements TrajectorySink {
  readonly lines: TrajectoryLine[] = [];
  async write(line: TrajectoryLine): Promise<void> {
    this.lines.push(structuredClone(line));
  }
  async close(): Promise<void> {}
}
