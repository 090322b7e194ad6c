/** SPARC 2.0 compatibility: config files, per-language execution, packages, metrics, result file. */
export * from "./config.js";
export { planPasses } from "./pass-rule.js";
export * from "./metrics.js";
export * from "./result.js";
export * from "./row.js";
export { runTestCase, buildExecRequest, judgeOutcome, type CaseContext } from "./execute-case.js";
export {
  sparcBenchmark,
  SPARC_RESULT_FILE,
  installConfigPackages,
  installOptionsFrom,
  sparcResultFromRows,
  type SparcItem,
} from "./definition.js";
export * from "./packages/install.js";
export * from "./packages/errors.js";
export { defaultPackageCacheRoot, packageSetKey } from "./packages/cache.js";
