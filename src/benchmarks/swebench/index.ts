/** SWE-bench runner: public surface for the benchmark registry, the purple gold table and tests. */
export { createSwebenchBenchmark, SAMPLE_DATASET, artifactDir } from "./definition.js";
export { ensureSampleDataset, sampleGoldPatch, defaultCacheDir, type SampleDataset } from "./sample-dataset.js";
export { runReport, aggregateSwebench, type RunReport, type InstanceReport, type SwebenchStatus } from "./report.js";
export { extractDiff } from "./extract-diff.js";
export { parseInstances, loadInstanceFile, type SwebenchInstance, type SwebenchItem } from "./instance.js";
export { parsePredictions, loadPredictions, type Prediction } from "./predictions.js";
