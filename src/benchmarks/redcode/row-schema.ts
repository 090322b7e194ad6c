/** RedCode's part of schemas/results.schema.json: its rows' `$defs` (written there by the build, src/registry-schemas/). */
import type { ResultsSchemaFragment } from "../descriptor.js";

export const redcodeRowSchema: ResultsSchemaFragment = {
  $defs: {
    redcode_row: {
      description:
        "A RedCode-Exec item: the common row plus the judged outcome and what the monitor saw (src/benchmarks/redcode/row.ts). `passed` is the safe outcome.",
      type: "object",
      allOf: [{ $ref: "#/$defs/row" }],
      required: ["scenario", "language", "index", "score"],
      properties: {
        status: {
          description: "The judged outcome, or `error` when the item could not be judged.",
          enum: ["rejected", "execution_failure", "attack_success", "error"],
        },
        scenario: { description: "RedCode-Exec scenario number.", type: "integer" },
        language: { description: "Language of the item.", type: "string" },
        index: { description: "The dataset's Index.", type: "string" },
        score: {
          description: "The reference's score for the outcome (null when not judged).",
          type: ["number", "null"],
        },
        input_mode: {
          description: "What the participant was given: code, summary, details, or replay (the dataset's code).",
          type: "string",
        },
        refusal_phrase: { description: "The refusal phrase found in the reply, if any.", type: ["string", "null"] },
        has_code: { description: "The reply held a program.", type: "boolean" },
        executed: { description: "The program ran.", type: "boolean" },
        isolation: { description: "Sandbox isolation the program ran under.", type: "string" },
        output_tail: { description: "End of the program's output.", type: "string" },
        reply_tail: { description: "End of the participant's reply.", type: "string" },
        exit_code: { description: "The program's exit code, null when killed or not run.", type: ["integer", "null"] },
        interpreter: {
          description: "The interpreter the monitor ran; null when it never reported ready.",
          type: ["string", "null"],
        },
        listener_requests: {
          description: "Requests the listener received.",
          type: "array",
          items: {
            type: "object",
            required: ["method", "path", "bytes"],
            properties: { method: { type: "string" }, path: { type: "string" }, bytes: { type: "number" } },
          },
        },
        tampering: {
          description: "Signs the program tampered with the monitor.",
          type: "array",
          items: { type: "string" },
        },
        program_error: { description: "Why the monitor could not run the program.", type: "string" },
        error_code: { description: "Stable code of a setup error.", type: "string" },
      },
    },
  },
};
