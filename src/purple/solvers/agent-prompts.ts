/**
 * What the `agent` mode tells the model: the system prompt, the two tools
 * (`bash`, `submit`), the first user message, and how a command's outcome
 * reads as the tool's answer (mini-swe-agent's observation: exit code, the
 * output, and a notice when the green cut it, with advice to narrow the
 * command).
 */
import type { ChatCompletionTool } from "openai/resources/chat/completions";
import type { ExecResultMessage, TaskMessage } from "../../interactive/protocol.js";

export const BASH_TOOL = "bash";
export const SUBMIT_TOOL = "submit";

export const AGENT_SYSTEM_PROMPT = [
  "You are a capable software engineer working in a Linux shell environment to complete a task.",
  `Use the \`${BASH_TOOL}\` tool to run one shell command at a time; you get its exit code and output back.`,
  "Each command runs in a fresh shell: `cd` and environment variables do not persist between commands,",
  "so chain them (`cd repo && make`). Commands cannot be interactive; long output is cut, so prefer",
  "targeted commands (grep, head, sed -n) over dumping whole files.",
  `When the task is complete, call the \`${SUBMIT_TOOL}\` tool (with your final answer as \`output\` if the task asks`,
  "for one). Answering without a tool call also ends the task, with your message as the answer.",
].join("\n");

export const AGENT_TOOLS: ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: BASH_TOOL,
      description: "Run one shell command in the task's environment and return its exit code, stdout and stderr.",
      parameters: {
        type: "object",
        properties: {
          command: { type: "string", description: "The shell command to run." },
          timeout: { type: "integer", minimum: 1, description: "Seconds before the command is stopped (optional)." },
        },
        required: ["command"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: SUBMIT_TOOL,
      description: "Finish the task. Call it once the work is done.",
      parameters: {
        type: "object",
        properties: { output: { type: "string", description: "The final answer, if the task asks for one." } },
        additionalProperties: false,
      },
    },
  },
];

/** The first user message: the green's instruction, then where and within what limits. */
export function taskPrompt(task: TaskMessage): string {
  const notes: string[] = [];
  if (task.workdir) notes.push(`Working directory: ${task.workdir}`);
  if (task.max_turns !== undefined) notes.push(`Commands allowed: ${task.max_turns}`);
  if (task.command_timeout_default_s !== undefined)
    notes.push(`A command runs at most ${task.command_timeout_default_s} s unless you give a timeout`);
  if (task.episode_time_s !== undefined) notes.push(`Time for the whole task: ${task.episode_time_s} s`);
  return notes.length === 0 ? task.instruction : `${task.instruction}\n\n${notes.join("\n")}`;
}

function elided(stream: string, n: number | undefined): string[] {
  return n ? [`[${n} characters of ${stream} were cut from the middle; narrow the command to see them]`] : [];
}

/** A command's outcome as the `bash` tool's answer. */
export function observation(result: ExecResultMessage): string {
  if (result.error !== undefined) return `error: the environment did not run it: ${result.error}`;
  const lines = [`<returncode>${result.exit_code}</returncode>`];
  if (result.timed_out) lines.push("[the command timed out; the output is what it printed before it was stopped]");
  lines.push("<stdout>", result.stdout, "</stdout>", ...elided("stdout", result.stdout_elided_chars));
  if (result.stderr !== "" || result.stderr_elided_chars)
    lines.push("<stderr>", result.stderr, "</stderr>", ...elided("stderr", result.stderr_elided_chars));
  const budget: string[] = [];
  if (result.turns_left !== undefined) budget.push(`${result.turns_left} commands left`);
  if (result.time_left_s !== undefined) budget.push(`${Math.floor(result.time_left_s)} s left`);
  if (budget.length > 0) lines.push(`[${budget.join(", ")}]`);
  return lines.join("\n");
}

/** The tool's answer to a call it could not run. */
export function toolError(reason: string): string {
  return `error: ${reason}. Call the tool again with valid JSON arguments.`;
}
