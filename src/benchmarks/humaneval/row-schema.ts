/** HumanEval's part of schemas/results.schema.json: its rows' `$defs` (written there by the build, src/registry-schemas/). */
import type { ResultsSchemaFragment } from "../descriptor.js";

export const humanevalRowSchema: ResultsSchemaFragment = {
  $defs: {
    humaneval_row: {
      description:
        "A HumanEval task: the common row plus the task and every completion's verdict (src/benchmarks/humaneval/row.ts).",
      type: "object",
      allOf: [{ $ref: "#/$defs/row" }],
      required: ["task_id", "entry_point", "n", "num_correct", "samples"],
      properties: {
        status: {
          description: "`passed` when every completion passed, else the first other completion's status.",
          enum: ["passed", "failed", "timeout", "error"],
        },
        task_id: { description: "The dataset's task_id.", type: "string" },
        entry_point: { description: "The function the tests call.", type: "string" },
        interaction: {
          description:
            "Present on interactive runs (`interaction: interactive`): each completion came from one episode in its own environment (its fields on the sample); the answer was graded by the trusted checker on the host, as a single-shot completion is.",
          const: "interactive",
        },
        n: { description: "Completions evaluated.", type: "integer", minimum: 0 },
        num_correct: { description: "Completions that passed.", type: "integer", minimum: 0 },
        samples: {
          description: "One verdict per completion, in the order asked (or read).",
          type: "array",
          items: { $ref: "#/$defs/humaneval_sample" },
        },
      },
    },
    humaneval_sample: {
      description: "One HumanEval completion and its run's verdict.",
      type: "object",
      required: [
        "status",
        "failure_mode",
        "limit_breach",
        "executed",
        "duration_ms",
        "completion_kind",
        "completion",
        "agent_seconds",
      ],
      properties: {
        status: { description: "The completion's verdict.", enum: ["passed", "failed", "timeout", "error"] },
        failure_mode: { description: "Why it did not pass (null when it did).", type: ["string", "null"] },
        limit_breach: { description: "The sandbox stopped the program for a containment limit.", type: "boolean" },
        executed: { description: "The program reached the sandbox.", type: "boolean" },
        duration_ms: {
          description: "Sandbox run time, ms (null when not run).",
          type: ["integer", "null"],
          minimum: 0,
        },
        completion_kind: { description: "How the code was extracted (`none`: no code).", type: "string" },
        completion: { description: "The completion as run (first 8000 characters).", type: "string" },
        agent_seconds: { description: "Time the participant took to answer, seconds.", type: "number", minimum: 0 },
        usage: {
          description: "Tokens the participant reported for this answer (schemas/token_usage.schema.json).",
          type: "object",
        },
        error: { description: "Why it did not run (no answer, no code, sandbox failure).", type: "string" },
        exit_code: { description: "Exit code, null when killed or not run.", type: ["integer", "null"] },
        signal: { description: "Signal that ended the program, if any.", type: ["string", "null"] },
        exception: {
          description:
            "Exception type the candidate's function raised (or, when an answer is missing, the last one on its stderr).",
          type: ["string", "null"],
        },
        reason: { description: "Why it did not pass, in words (null when it passed).", type: ["string", "null"] },
        rounds: {
          description:
            "Answer rounds of the batch replay (more than 1 only when check() arguments depended on answers).",
          type: "integer",
          minimum: 0,
        },
        calls: { description: "Calls of check() to the entry point in the last round.", type: "integer", minimum: 0 },
        stdout_tail: { description: "End of the program's answer channel (its standard output).", type: "string" },
        stderr_tail: { description: "End of standard error (where the candidate's own prints go).", type: "string" },
        reply_tail: {
          description: "End of the participant's reply (last 4000 characters) when no code could be taken from it.",
          type: "string",
        },
        exit_status: {
          description:
            "Interactive: how the sample's episode ended (docs/interactive.md). Only `final` submits an answer; `environment_error` and `canceled` are ours (`infrastructure_sandbox`), never a score.",
          enum: [
            "final",
            "turn_limit",
            "time_limit",
            "format_errors",
            "participant_error",
            "resource_limit",
            "environment_error",
            "canceled",
          ],
        },
        turns: { description: "Interactive: participant replies received.", type: "integer", minimum: 0 },
        commands: { description: "Interactive: commands run in the environment.", type: "integer", minimum: 0 },
        command_seconds: { description: "Interactive: seconds the commands took, summed.", type: "number", minimum: 0 },
        participant_seconds: {
          description: "Interactive: seconds spent waiting for the participant, summed.",
          type: "number",
          minimum: 0,
        },
        truncations: {
          description: "Interactive: output streams cut before they were sent to the participant.",
          type: "integer",
          minimum: 0,
        },
        trajectory: {
          description:
            "Interactive: the episode's trajectory (JSON Lines, one line per turn), relative to the run's directory.",
          type: "string",
        },
        answer_source: {
          description:
            "Interactive: where the graded answer came from: `final` (the final output held code), `file` (solution.py read back from the environment), null (no answer).",
          enum: ["final", "file", null],
        },
        episode_error: {
          description:
            "Interactive: why the episode ended early (participant_error, format_errors, environment_error).",
          type: "object",
          required: ["code", "message"],
          properties: { code: { type: "string" }, message: { type: "string" } },
        },
      },
    },
  },
};
