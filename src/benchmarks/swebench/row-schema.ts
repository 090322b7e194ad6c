/** SWE-bench's part of schemas/results.schema.json: its rows' `$defs` (written there by the build, src/registry-schemas/). */
import type { ResultsSchemaFragment } from "../descriptor.js";

export const swebenchRowSchema: ResultsSchemaFragment = {
  $defs: {
    swebench_row: {
      description:
        "A SWE-bench instance: the common row plus the official report.json entry's keys and how the patch was graded (src/benchmarks/swebench/row.ts).",
      type: "object",
      allOf: [{ $ref: "#/$defs/row" }],
      required: [
        "model_name_or_path",
        "submitted",
        "patch_is_None",
        "patch_exists",
        "patch_successfully_applied",
        "resolved",
        "apply_strategy",
        "touches_test_config",
        "test_config_flags",
        "resolved_strict",
        "grading_rules",
        "report_path",
        "artifacts_dir",
      ],
      properties: {
        status: {
          description: "The official resolution, or why there is none.",
          enum: [
            "RESOLVED_FULL",
            "RESOLVED_PARTIAL",
            "RESOLVED_NO",
            "EMPTY_PATCH",
            "PATCH_APPLY_FAILED",
            "TIMEOUT",
            "ERROR",
          ],
        },
        model_name_or_path: { description: "The prediction's model name.", type: "string" },
        submitted: {
          description: "A prediction exists for the instance (official `submitted`), even an empty one.",
          type: "boolean",
        },
        patch_is_None: { description: "report.json: the prediction's model_patch was null.", type: "boolean" },
        patch_exists: { description: "report.json: the prediction had a patch.", type: "boolean" },
        patch_successfully_applied: { description: "report.json: the test log was valid.", type: "boolean" },
        resolved: {
          description:
            "report.json: RESOLVED_FULL under the official rules of `grading_rules` (comparable with the official leaderboard; `--strict-tests` never changes it).",
          type: "boolean",
        },
        resolved_strict: {
          description: "`resolved` and nothing in `test_config_flags`: a flagged instance counts as unresolved.",
          type: "boolean",
        },
        infra_failure: {
          description: "report.json (5.0.2): the void log matches an environment failure signature (advisory).",
          type: "boolean",
        },
        infra_failure_reason: { description: "report.json (5.0.2): the signature that matched.", type: "string" },
        tests_status: {
          description: "report.json: success/failure per test group, when the log was graded.",
          type: "object",
          properties: {
            FAIL_TO_PASS: {
              type: "object",
              required: ["success", "failure"],
              properties: {
                success: { type: "array", items: { type: "string" } },
                failure: { type: "array", items: { type: "string" } },
              },
              additionalProperties: false,
            },
            PASS_TO_PASS: {
              type: "object",
              required: ["success", "failure"],
              properties: {
                success: { type: "array", items: { type: "string" } },
                failure: { type: "array", items: { type: "string" } },
              },
              additionalProperties: false,
            },
            FAIL_TO_FAIL: {
              type: "object",
              required: ["success", "failure"],
              properties: {
                success: { type: "array", items: { type: "string" } },
                failure: { type: "array", items: { type: "string" } },
              },
              additionalProperties: false,
            },
            PASS_TO_FAIL: {
              type: "object",
              required: ["success", "failure"],
              properties: {
                success: { type: "array", items: { type: "string" } },
                failure: { type: "array", items: { type: "string" } },
              },
              additionalProperties: false,
            },
          },
          required: ["FAIL_TO_PASS", "PASS_TO_PASS", "FAIL_TO_FAIL", "PASS_TO_FAIL"],
        },
        apply_strategy: {
          description: "How the patch applied (null when it did not, or none was tried).",
          type: ["string", "null"],
        },
        touches_test_config: {
          description: "Paths (or `<kind>` when a change has no path) of what the patch changes in how the tests run.",
          type: "array",
          items: { type: "string" },
        },
        test_config_flags: {
          description: "Each change the patch makes to how the tests run (src/benchmarks/swebench/test-inventory.ts).",
          type: "array",
          items: {
            type: "object",
            required: ["kind", "path", "detail"],
            properties: {
              kind: {
                enum: [
                  "test_file",
                  "runner_file",
                  "pytest_setup",
                  "pytest_config",
                  "symlink",
                  "hook_file",
                  "shadowing_module",
                  "plugin_entry_point",
                  "pytest_plugins",
                  "pytest_conftests",
                  "pytest_options",
                  "environment",
                  "runner_disagrees",
                  "probe_failed",
                ],
              },
              path: { type: ["string", "null"] },
              detail: { type: "string" },
            },
            additionalProperties: false,
          },
        },
        grading_rules: { description: "Version of the official grading rules used.", type: "string" },
        report_path: { description: "The instance's report.json.", type: "string" },
        artifacts_dir: { description: "The instance's artifacts directory.", type: "string" },
        error_code: { description: "Stable code of an infrastructure error.", type: "string" },
        strict_tests_voided: {
          description: "`--strict-tests` voided the resolution (the patch touches test configuration).",
          const: true,
        },
        interpreter_missing: {
          description:
            "The tests' interpreter was missing in the sandbox; graded as the official release grades it (unresolved, completed).",
          const: true,
        },
        log_void: { description: "Why the log yields no usable status map.", type: "string" },
        infra_signature: {
          description: "The failure signature the log matched (advisory).",
          type: "object",
          required: ["reason", "environment"],
          properties: { reason: { type: "string" }, environment: { type: "boolean" } },
        },
        interaction: {
          description:
            "Present on interactive items (`interaction: interactive`): the participant worked in the instance's environment one command per turn; the change it left was graded as its prediction in a fresh environment.",
          const: "interactive",
        },
        exit_status: {
          description:
            "Interactive: how the episode ended (docs/interactive.md). `environment_error` and `canceled` are ours: the item is then an infrastructure failure.",
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
            "Interactive: the item's trajectory (JSON Lines, one line per turn), relative to the run's directory.",
          type: "string",
        },
        episode_error: {
          description:
            "Interactive: why the episode ended early (participant_error, format_errors, resource_limit, environment_error).",
          type: "object",
          required: ["code", "message"],
          properties: { code: { type: "string" }, message: { type: "string" } },
        },
      },
    },
  },
};
