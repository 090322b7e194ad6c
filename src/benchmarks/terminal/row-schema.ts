/** Terminal's part of schemas/results.schema.json: its rows' `$defs` (written there by the build, src/registry-schemas/). */
import type { ResultsSchemaFragment } from "../descriptor.js";

export const terminalRowSchema: ResultsSchemaFragment = {
  $defs: {
    terminal_row: {
      description:
        "A terminal (Harbor / Terminal-Bench) attempt: one episode in the task's own environment and its verifier's verdict (src/benchmarks/terminal/row.ts).",
      type: "object",
      allOf: [
        {
          $ref: "#/$defs/row",
        },
      ],
      required: ["task_id", "attempt", "instruction", "reward"],
      properties: {
        status: {
          enum: ["passed", "failed", "unsupported", "error"],
        },
        task_id: {
          description: "The task directory's name.",
          type: "string",
        },
        attempt: {
          description: "1-based attempt number (`n` attempts per task).",
          type: "integer",
          minimum: 1,
        },
        instruction: {
          description: "The instruction sent as the task message.",
          type: "string",
        },
        reward: {
          description:
            "The score: the verifier's reward, 0 when `tampered` is not empty; null when none (unsupported, error).",
          type: ["number", "null"],
        },
        verifier_reward: {
          description: "What the verifier wrote, before the tamper rule.",
          type: ["number", "null"],
        },
        reward_file: {
          enum: ["reward.json", "reward.txt", null],
        },
        reward_details: {
          description: "reward.json as the verifier wrote it.",
          type: "object",
        },
        verifier_timed_out: {
          type: "boolean",
        },
        verifier_exit_code: {
          type: ["integer", "null"],
        },
        verifier_output: {
          description: "Tail of the verifier's output.",
          type: "string",
        },
        tampered: {
          description:
            "Changes of the participant's that could steer the verifier, seen from outside the environment; the row scores 0.",
          type: "array",
          items: {
            type: "string",
          },
        },
        tamper_unchecked: {
          description: "The backend could not show the environment's changes from outside.",
          const: true,
        },
        unsupported: {
          description: "Why the task was refused (status `unsupported`).",
          type: "array",
          items: {
            type: "string",
          },
        },
        network: {
          description:
            "The network the environment (episode and verifier) had: `none`, or the engine network it joined (`terminal_network`, for a task asking for the network when `allow_network` is true).",
          type: "string",
        },
        engine: {
          description: "The container engine the environment ran on (its URL; `default`: the docker CLI's own).",
          type: "string",
        },
        image: {
          type: "string",
        },
        image_cache_hit: {
          type: "boolean",
        },
        build_seconds: {
          type: "number",
          minimum: 0,
        },
        episode_seconds: {
          type: "number",
          minimum: 0,
        },
        verifier_seconds: {
          type: "number",
          minimum: 0,
        },
        retries: {
          description: "Infrastructure retries (a build, an environment's start, a verifier crash).",
          type: "integer",
          minimum: 0,
        },
        exit_status: {
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
        turns: {
          type: "integer",
          minimum: 0,
        },
        commands: {
          type: "integer",
          minimum: 0,
        },
        trajectory: {
          description: "The episode's trajectory file, relative to the run directory.",
          type: "string",
        },
        episode_error: {
          type: "object",
          required: ["code", "message"],
          properties: {
            code: {
              type: "string",
            },
            message: {
              type: "string",
            },
          },
        },
        error_code: {
          type: "string",
        },
      },
    },
  },
};
