/**
 * Which release of the official SWE-bench harness our grading reproduces.
 *
 * Default `5.0.2` (the harness's `__version__` 5.0.2; its grading, parsers and
 * report are those of the repository's HEAD at the time of writing). `4.1.0`
 * is the last release before the stricter rules below; logs graded before
 * 5.0.0 were graded that way. Each flag names one rule that differs.
 */

export type RulesVersion = "5.0.2" | "4.1.0";

/** Default rules of every grading entry point (`swebench grade`, the runner). */
export const DEFAULT_RULES: RulesVersion = "5.0.2";

export const RULES_VERSIONS: readonly RulesVersion[] = ["5.0.2", "4.1.0"];

export interface RuleSet {
  version: RulesVersion;
  /** A FAIL_TO_PASS test that ends SKIPPED is a failure (4.1.0: in neither list, so it does not count at all). */
  skippedFailsF2P: boolean;
  /** A PASS_TO_PASS test that ends SKIPPED is a success (4.1.0: in neither list). */
  skippedMaintainsP2P: boolean;
  /** An expected id with more `[` than `]` (a truncated parametrize id) may match a longer id by prefix. */
  truncatedIdPrefix: boolean;
  /** An empty status map with no sign that a test suite ran voids the run. */
  requireSuiteEvidence: boolean;
  /** A non-zero recorded exit code with no FAILED/ERROR in the map voids the run. */
  exitCodeCrossCheck: boolean;
  /** pytest-family parsers ignore `SKIPPED [N] file:line: reason` summary lines (4.1.0 records `[N]` as a test). */
  dropSkipSummary: boolean;
  /** pytest_v2 keeps the whole rest of the line as the id and cuts FAILED lines at ` - ` (4.1.0: second word only). */
  pytestV2WholeId: boolean;
  /** The per-instance report carries `infra_failure` (and `infra_failure_reason` when classified). */
  infraFailureField: boolean;
  /**
   * How the model patch is applied (run_evaluation.py `GIT_APPLY_CMDS` and the loop around it):
   * 4.1.0 tries `git apply --verbose`, `git apply --verbose --reject`, `patch --batch --fuzz=5 -p1 -i`
   * on whatever the previous attempt left; 5.0.2 tries `git apply --verbose`, `git apply --verbose --3way`,
   * `git apply --verbose --reject`, `patch --batch --forward --fuzz=5 -p1 -i`, putting the tree back
   * between attempts, and when all fail accepts a patch that `git apply --check --reverse` finds
   * already applied. Without `--forward`, `patch --batch` applies a reversed patch backwards.
   */
  apply: { strategies: readonly ApplyStrategy[]; resetBetween: boolean; reverseCheck: boolean };
  /**
   * An image without the interpreter its test command needs (`/usr/bin/env: 'python': No such file
   * or directory`, exit 127) is graded like any log without results, as the model's failure: 4.1.0
   * parses no test (every FAIL_TO_PASS test absent: RESOLVED_NO, patch applied); 5.0.2 finds no sign
   * that a suite ran (the log is void: unresolved, patch not counted as applied). Both write a
   * report.json, so the instance is completed and unresolved, never an error instance. True in both.
   */
  missingInterpreterIsModelFailure: boolean;
}

/** One way of applying a model patch (apply-patch.ts runs them, eval-script.ts in a container). */
export type ApplyStrategy = "git_apply" | "git_apply_3way" | "git_apply_reject" | "patch_fuzz" | "patch_fuzz_forward";

const V5: RuleSet = {
  version: "5.0.2",
  skippedFailsF2P: true,
  skippedMaintainsP2P: true,
  truncatedIdPrefix: true,
  requireSuiteEvidence: true,
  exitCodeCrossCheck: true,
  dropSkipSummary: true,
  pytestV2WholeId: true,
  infraFailureField: true,
  apply: {
    strategies: ["git_apply", "git_apply_3way", "git_apply_reject", "patch_fuzz_forward"],
    resetBetween: true,
    reverseCheck: true,
  },
  missingInterpreterIsModelFailure: true,
};

const V4: RuleSet = {
  version: "4.1.0",
  skippedFailsF2P: false,
  skippedMaintainsP2P: false,
  truncatedIdPrefix: false,
  requireSuiteEvidence: false,
  exitCodeCrossCheck: false,
  dropSkipSummary: false,
  pytestV2WholeId: false,
  infraFailureField: false,
  apply: { strategies: ["git_apply", "git_apply_reject", "patch_fuzz"], resetBetween: false, reverseCheck: false },
  missingInterpreterIsModelFailure: true,
};

export function ruleSet(version: RulesVersion = DEFAULT_RULES): RuleSet {
  return version === "4.1.0" ? V4 : V5;
}

export function isRulesVersion(v: string): v is RulesVersion {
  return (RULES_VERSIONS as readonly string[]).includes(v);
}
