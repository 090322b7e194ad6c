/**
 * The results-file row of one SWE-bench instance (`$defs/swebench_row` of
 * schemas/results.schema.json): the common row, the official report.json
 * entry's keys, and how the patch was graded;
 * tests/benchmarks/swebench/row.test.ts holds it to the schema.
 */
import type { ResultRow } from "../../results-file/document.js";
import type { InstanceReport } from "./grading.js";
import type { SwebenchStatus } from "./report.js";
import type { EpisodeExitStatus } from "../../interactive/episode-record.js";
import type { TestConfigFlag } from "./test-inventory.js";

export interface SwebenchRow extends ResultRow, InstanceReport {
  status: SwebenchStatus;
  /** The prediction's model name. */
  model_name_or_path: string;
  /** A prediction exists for the instance (official `submitted`), even an empty one. */
  submitted: boolean;
  /** How the patch applied; null when it did not, or none was tried. */
  apply_strategy: string | null;
  /** Paths (or `<kind>` when a change has no path) of what the patch changes in how the tests run. */
  touches_test_config: string[];
  /** Each change the patch makes to how the tests run (test-inventory.ts): kind, path, detail. */
  test_config_flags: TestConfigFlag[];
  /**
   * Resolved under the official rules AND nothing flagged: what `--strict-tests` scores. `resolved`
   * (from report.json) stays the official verdict, comparable with the official leaderboard.
   */
  resolved_strict: boolean;
  /** Version of the official grading rules used. */
  grading_rules: string;
  /** The instance's report.json. */
  report_path: string;
  /** The instance's artifacts directory. */
  artifacts_dir: string;
  /** Stable code of an infrastructure error (errors.ts). */
  error_code?: string;
  /** `--strict-tests` voided the resolution: the patch touches test configuration. */
  strict_tests_voided?: true;
  /** The tests' interpreter was missing in the sandbox; graded as the named release grades it (rules.ts). */
  interpreter_missing?: true;
  /** Why the log yields no usable status map. */
  log_void?: string;
  /** The failure signature the log matched (advisory). */
  infra_signature?: { reason: string; environment: boolean };
  /** Interactive items only: how the participant was assessed. */
  interaction?: "interactive";
  /** How the item's episode ended (src/interactive/episode-record.ts). */
  exit_status?: EpisodeExitStatus;
  /** Participant replies received. */
  turns?: number;
  /** Commands run in the environment. */
  commands?: number;
  /** Seconds the commands took, summed. */
  command_seconds?: number;
  /** Seconds spent waiting for the participant, summed. */
  participant_seconds?: number;
  /** Output streams cut before they were sent. */
  truncations?: number;
  /** The item's trajectory (JSON Lines), relative to the run's directory. */
  trajectory?: string;
  /** Why the episode ended early: a code and a message. */
  episode_error?: { code: string; message: string };
}
