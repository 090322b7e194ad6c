/**
 * The participant's side of AgentSWE's green (SWE-bench with actions `bash`,
 * `debug`, `patch`), translated to and from the episode's own messages so
 * every interactive purple mode plays it unchanged:
 *
 * - green → purple, first: a JSON object with the issue (`problem_statement`,
 *   `hints_text`, `cwd`, `python_version`, `fail_to_pass`; no `kind`) → a
 *   `task` whose instruction is the issue, with a note that the change is
 *   taken from the final answer;
 * - later: `{cwd, stdout, stderr}` after `bash`, the same with
 *   `debug_result: true` after `debug`, `{patch_failed: true, stderr, ...}`
 *   after a patch that did not apply, `{error, message}` after a reply it
 *   could not read → an `exec_result` (a failed patch or an error: exit 1);
 * - purple → green: the green reads the action from the reply artifact's
 *   NAME and the command or diff from its text: `exec_request` → `bash` with
 *   the command, `final` → `patch` with the diff found in the output (the
 *   whole output when it holds none: the green tries it, says it failed, and
 *   ends the task after its retries).
 *
 * AgentSWE's repository is read-only to `bash` and `debug` writes to a
 * throwaway copy, so the change exists only as the `patch`: episodes are told
 * so ({@link AgentSweStart.finalPatch}).
 */
import type { ExecResultMessage, TaskMessage } from "../../interactive/protocol.js";
import { PROTOCOL_NAME } from "../../interactive/protocol.js";
import { extractDiff } from "../../benchmarks/swebench/extract-diff.js";
import type { SolverReply } from "../solver.js";
import type { EpisodeStep } from "./episode.js";

/** What the instruction of an AgentSWE task says besides the issue. */
export const AGENTSWE_NOTE =
  "The repository is read-only to your commands here: explore with commands, then reply final with your " +
  "whole change as a unified diff (`diff --git a/... b/...`) as the output; it is applied as your patch.";

type Json = Record<string, unknown>;

function parseObject(text: string): Json | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const v: unknown = JSON.parse(trimmed);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** An AgentSWE message read as the episode's own. */
export type AgentSweMessage = { kind: "task"; task: TaskMessage } | { kind: "exec_result"; result: ExecResultMessage };

/** The AgentSWE green's message in `text`, or undefined when it is not one. */
export function decodeAgentSweMessage(text: string): AgentSweMessage | undefined {
  const o = parseObject(text);
  if (!o || "kind" in o) return undefined;
  if (typeof o["problem_statement"] === "string") {
    const hints = str(o["hints_text"]).trim();
    const instruction = [o["problem_statement"], ...(hints ? ["", "Hints:", hints] : []), "", AGENTSWE_NOTE].join("\n");
    const cwd = str(o["cwd"]);
    return {
      kind: "task",
      task: { kind: "task", protocol: PROTOCOL_NAME, instruction, ...(cwd ? { workdir: cwd } : {}) },
    };
  }
  if (o["patch_failed"] === true || (typeof o["error"] === "string" && !("stdout" in o))) {
    const said = [str(o["message"]), str(o["error"])].filter((s) => s !== "").join(": ");
    const stderr = [str(o["stderr"]), said].filter((s) => s !== "").join("\n");
    return { kind: "exec_result", result: { kind: "exec_result", exit_code: 1, stdout: "", stderr } };
  }
  if (typeof o["cwd"] === "string" && ("stdout" in o || "stderr" in o)) {
    const failed = o["success"] === false || (str(o["stderr"]) !== "" && str(o["stdout"]) === "");
    return {
      kind: "exec_result",
      result: { kind: "exec_result", exit_code: failed ? 1 : 0, stdout: str(o["stdout"]), stderr: str(o["stderr"]) },
    };
  }
  return undefined;
}

/** A step as the AgentSWE green reads it: the action as the artifact's name, the command or diff as its text. */
export function agentSweReply(step: EpisodeStep): SolverReply {
  const { action } = step;
  const reply =
    action.kind === "exec_request"
      ? { artifactName: "bash", text: action.command }
      : { artifactName: "patch", text: extractDiff(action.output ?? "") ?? action.output ?? "" };
  return {
    ...reply,
    ...(step.usage ? { usage: step.usage } : {}),
    metadata: { protocol: "agentswe", ...step.metadata },
  };
}
