/** SWE-bench runner: public surface for the benchmark registry, the purple gold table, container back-ends and tests. */
export { createSwebenchBenchmark, SAMPLE_DATASET, artifactDir } from "./definition.js";
export { ensureSampleDataset, sampleGoldPatch, defaultCacheDir, type SampleDataset } from "./sample-dataset.js";
export {
  runReport,
  aggregateSwebench,
  writeRunFiles,
  runReportFileName,
  type RunReport,
  type SwebenchStatus,
} from "./report.js";
export { extractDiff } from "./extract-diff.js";
export { parseInstances, loadInstanceFile, type SwebenchInstance, type SwebenchItem } from "./instance.js";
export { parsePredictions, loadPredictions, predictionsJsonl, type Prediction } from "./predictions.js";
// Grading, pure (official get_logs_eval / get_eval_report):
export {
  evaluateLog,
  instanceReport,
  testsStatus,
  resolutionStatus,
  groupRate,
  classifyInfra,
  type LogEvaluation,
  type VoidReason,
  type GradeInput,
  type GradeResult,
  type InstanceReport,
  type ReportJson,
  type TestsStatus,
  type ResolutionStatus,
} from "./grading.js";
export { LOG_PARSERS, frameworkByName, type Framework, type StatusMap } from "./log-parsers.js";
export { ruleSet, DEFAULT_RULES, RULES_VERSIONS, type RuleSet, type RulesVersion } from "./rules.js";
// Harness-owned test logs (nonce markers):
export { newNonce, harnessMarkers, assembleHarnessLog, harnessNonceOf, type HarnessLogParts } from "./markers.js";
// From a finished test run to a verdict (host and container paths alike):
export { gradeTestRun, type Verdict, type TestRun, type GradedRun } from "./verdict.js";
// The official spec table and eval plan:
export {
  OFFICIAL_SPECS,
  evalPlan,
  officialEvalScript,
  officialTestCommand,
  testDirectives,
  modifiedFiles,
  frameworkFor,
  versionSpecFor,
  testFilesOf,
  type EvalPlan,
  type VersionSpec,
} from "./test-spec.js";
export { patchTargets } from "./test-config.js";
// What a patch changes in how the tests run (flagged by effect):
export {
  diffInventories,
  namedFlags,
  symlinkModes,
  type Inventory,
  type TestConfigFlag,
  type TestConfigFlagKind,
} from "./test-inventory.js";
export { SwebenchInfraError, SwebenchSpecError, SWEBENCH_ERROR_CODES, type SwebenchInfraCode } from "./errors.js";
