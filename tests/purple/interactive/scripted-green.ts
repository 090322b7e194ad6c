/**
 * The green side of interactive purple tests: a purple app served on
 * loopback, and a conversation that sends each message as a NEW A2A task in
 * the SAME contextId (omitted on the first send, then the purple's), as RDI's
 * greens do. A real-bash environment in a scratch directory for episodes run
 * by the green's own loop (src/interactive/episode.ts).
 */
import { execFile } from "node:child_process";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createPurpleApp } from "../../../src/purple/app.js";
import type { Solver } from "../../../src/purple/solver.js";
import { createA2AClient, type WireVersion } from "../../../src/a2a/client/client.js";
import { joinedText, partText, textPart, userMessage } from "../../../src/a2a/shared/parts.js";
import type { CommandOutcome, EpisodeEnvironment } from "../../../src/interactive/episode-environment.js";
import { asTask, serveOnLoopback } from "../../a2a/helpers.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";

export function servePurple(solver: Solver): Promise<ServedApp & { url: string }> {
  return serveOnLoopback((card) => createPurpleApp({ card, solver }));
}

export interface Turn {
  task: Task;
  state: TaskState | undefined;
  /** The `response` artifact's text (the action's JSON), or the failed status's text. */
  text: string;
  /** The action, when the text is JSON. */
  action: Record<string, unknown> | undefined;
  /** The `response` artifact's metadata. */
  metadata: Record<string, unknown> | undefined;
  /** The reply artifact's name (`response`; AgentSWE's action when answering its green). */
  artifactName: string | undefined;
}

export interface Conversation {
  readonly contextId: string | undefined;
  send(payload: Record<string, unknown> | string): Promise<Turn>;
}

export async function converse(url: string, wire: WireVersion = "1.0"): Promise<Conversation> {
  const client = await createA2AClient(url, wire);
  let contextId: string | undefined;
  return {
    get contextId() {
      return contextId;
    },
    async send(payload) {
      const text = typeof payload === "string" ? payload : JSON.stringify(payload);
      const task = asTask(
        await client.sendMessage({
          tenant: "",
          message: userMessage([textPart(text)], contextId !== undefined ? { contextId } : {}),
          configuration: undefined,
          metadata: undefined,
        }),
      );
      contextId ??= task.contextId;
      const artifact = task.artifacts.find((a) => a.name === "response") ?? task.artifacts[0];
      const status = task.status?.message ? (partText(task.status.message.parts[0]!) ?? "") : "";
      const reply = artifact ? joinedText(artifact.parts) : status;
      let action: Record<string, unknown> | undefined;
      try {
        action = JSON.parse(reply) as Record<string, unknown>;
      } catch {
        action = undefined;
      }
      return {
        task,
        state: task.status?.state,
        text: reply,
        action,
        metadata: artifact?.metadata,
        artifactName: artifact?.name,
      };
    },
  };
}

/** exec_result for an outcome. */
export const result = (exit_code: number, stdout = "", stderr = "", extra: Record<string, unknown> = {}) => ({
  kind: "exec_result",
  exit_code,
  stdout,
  stderr,
  ...extra,
});

/** Each command in a fresh `bash -c` in `cwd`, killed at its timeout (bounded: tests stop by themselves). */
export class BashEnvironment implements EpisodeEnvironment {
  readonly commands: string[] = [];
  constructor(private readonly cwd: string) {}

  run(command: string, timeoutS: number): Promise<CommandOutcome> {
    this.commands.push(command);
    const started = Date.now();
    return new Promise((resolve) => {
      execFile(
        "bash",
        ["-c", command],
        { cwd: this.cwd, timeout: Math.min(timeoutS, 20) * 1000, killSignal: "SIGKILL" },
        (err, stdout, stderr) => {
          const code = err && typeof err.code === "number" ? err.code : err ? null : 0;
          resolve({
            exitCode: code,
            stdout,
            stderr,
            timedOut: err?.killed === true,
            durationMs: Date.now() - started,
          });
        },
      );
    });
  }
}
