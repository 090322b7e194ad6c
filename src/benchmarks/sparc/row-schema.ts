/** SPARC's part of schemas/results.schema.json: its rows' `$defs` (written there by the build, src/registry-schemas/). */
import type { ResultsSchemaFragment } from "../descriptor.js";

export const sparcRowSchema: ResultsSchemaFragment = {
  $defs: {
    sparc_row: {
      description: "A SPARC test case: the common row plus the case and its run (src/benchmarks/sparc/row.ts).",
      type: "object",
      allOf: [{ $ref: "#/$defs/row" }],
      required: [
        "language",
        "benchmark_type",
        "benchmark_name",
        "execution_ms",
        "timeout_ms",
        "output",
        "limit_breach",
        "exit_code",
        "signal",
      ],
      properties: {
        status: {
          description:
            "passed (expected output and a clean exit 0), failed (exit 0, wrong output), timeout, error (non-zero exit, signal or output cap), skipped (sandbox failure or cancelled run).",
          enum: ["passed", "failed", "timeout", "error", "skipped"],
        },
        language: { description: "Language of the case.", enum: ["python", "javascript", "typescript"] },
        benchmark_type: { description: "The plan's benchmark type.", enum: ["humaneval", "swebench", "redcode"] },
        benchmark_name: { description: "The plan's benchmark name.", type: "string" },
        execution_ms: {
          description: "Program wall time in the sandbox, ms (the plan's `executionTime`).",
          type: "number",
          minimum: 0,
        },
        timeout_ms: { description: "The limit the case ran under, ms.", type: "number", minimum: 0 },
        output: { description: "Standard output (tail).", type: "string" },
        limit_breach: {
          description: "The sandbox stopped the program for a containment-limit breach (not time).",
          type: "boolean",
        },
        exit_code: {
          description: "Process exit code as the kernel reported it, null when killed or not run.",
          type: ["integer", "null"],
        },
        signal: {
          description: "Signal that ended the program, as the kernel reported it (null: it exited, or did not run).",
          type: ["string", "null"],
        },
      },
    },
  },
};
