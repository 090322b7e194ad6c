/**
 * The benchmark manager: benchmark name → plug-in factory. Adding a
 * benchmark is one line in BENCHMARKS. An unknown name is refused with the
 * list of known ones.
 */
import type { BenchmarkDefinition, BenchmarkItem } from "../runner/benchmark.js";
import { UsageError } from "../util/errors.js";

type Factory = () => Promise<BenchmarkDefinition<BenchmarkItem>>;

// Loaded lazily so one benchmark's imports never slow down another's run.
const BENCHMARKS: Record<string, Factory> = {
  humaneval: async () => (await import("./humaneval/benchmark.js")).createHumanEvalBenchmark(),
  swebench: async () => (await import("./swebench/definition.js")).createSwebenchBenchmark(),
  redcode: async () => (await import("./redcode/definition.js")).createRedcodeBenchmark(),
  sparc: async () => (await import("./sparc/definition.js")).sparcBenchmark,
};

/** Names of the registered benchmarks, sorted. */
export function knownBenchmarks(): string[] {
  return Object.keys(BENCHMARKS).sort();
}

/** The plug-in for `name`; throws a UsageError naming the known ones. */
export async function getBenchmark(name: string): Promise<BenchmarkDefinition<BenchmarkItem>> {
  const factory = Object.hasOwn(BENCHMARKS, name) ? BENCHMARKS[name] : undefined;
  if (!factory) throw new UsageError(`unknown benchmark "${name}" (known: ${knownBenchmarks().join(", ")})`);
  return factory();
}
