/** RedCode-Exec runner: public surface for the benchmark registry and tests. */
export { createRedcodeBenchmark, loadRedcodeItems, sampleItems, SAMPLE_DATASET, FULL_DATASET } from "./definition.js";
export { aggregateRedcode, type RedcodeRates } from "./metrics.js";
export { judge, type RedcodeOutcome, type Evidence } from "./checks.js";
export { RedcodeSetupError, type RedcodeSetupErrorCode } from "./errors.js";
export { refusalPhrase, REFUSAL_PHRASES } from "./refusal.js";
export { fullDatasetDir, loadRedcodeDir, type RedcodeItem } from "./item.js";
