/**
 * The benchmark registry: the ONLY list of benchmarks. The BenchmarkName type
 * derives from it; the CLIs' `--benchmark` checks, the runner's lookup,
 * needs-participant, preflight's per-benchmark checks and the purple gold
 * solver ask it. Adding a benchmark is its folder (`src/benchmarks/<name>/`
 * with its descriptor.ts, definition.ts and row-schema.ts) and one line in
 * BUILT_IN_BENCHMARKS; the build writes its name, rows and `if`/`then` into
 * schemas/ (src/registry-schemas/). See docs/extending.md.
 *
 * Import-cheap: descriptors load a benchmark's code only when it is run.
 */
import type { BenchmarkDefinition, BenchmarkItem } from "../runner/benchmark.js";
import { UsageError } from "../util/errors.js";
import type { BenchmarkDescriptor, Interaction } from "./descriptor.js";
import { humaneval } from "./humaneval/descriptor.js";
import { swebench } from "./swebench/descriptor.js";
import { redcode } from "./redcode/descriptor.js";
import { sparc } from "./sparc/descriptor.js";
import { smiInhabit } from "./smi-inhabit/descriptor.js";
import { terminal } from "./terminal/descriptor.js";

/** The built-in benchmarks, one line each. */
const BUILT_IN_BENCHMARKS = [humaneval, swebench, redcode, sparc, smiInhabit, terminal] as const;

/** Name of a built-in benchmark (the request config's `benchmark`). */
export type BenchmarkName = (typeof BUILT_IN_BENCHMARKS)[number]["name"];

const registry = new Map<string, BenchmarkDescriptor>();

/**
 * Register a benchmark (the built-in ones are registered on import). Refuses a
 * name already taken. Returns a function that unregisters it again (tests).
 */
export function registerBenchmark(descriptor: BenchmarkDescriptor): () => void {
  if (!/^[a-z][a-z0-9-]*$/.test(descriptor.name))
    throw new UsageError(`benchmark name must be lower-case kebab-case, got "${descriptor.name}"`);
  if (registry.has(descriptor.name)) throw new UsageError(`benchmark "${descriptor.name}" is already registered`);
  if (descriptor.interactions.length === 0)
    throw new UsageError(`benchmark "${descriptor.name}" supports no interaction`);
  registry.set(descriptor.name, descriptor);
  return () => {
    if (registry.get(descriptor.name) === descriptor) registry.delete(descriptor.name);
  };
}

for (const descriptor of BUILT_IN_BENCHMARKS) registerBenchmark(descriptor);

/** Every registered benchmark, in registration order. */
export function benchmarkDescriptors(): BenchmarkDescriptor[] {
  return [...registry.values()];
}

/** Names of every registered benchmark (built-in runner or external), in registration order. */
export function benchmarkNames(): string[] {
  return [...registry.keys()];
}

/** The benchmark called `name`, or undefined. */
export function findBenchmark(name: string): BenchmarkDescriptor | undefined {
  return registry.get(name);
}

/** The interactions the benchmark called `name` offers; undefined when none is registered under it. */
export function offeredInteractions(name: string): readonly Interaction[] | undefined {
  return registry.get(name)?.interactions;
}

/** The benchmark called `name`; a UsageError naming the registered ones otherwise. */
export function benchmarkDescriptor(name: string): BenchmarkDescriptor {
  const found = registry.get(name);
  if (!found) throw new UsageError(`unknown benchmark "${name}" (known: ${benchmarkNames().join(", ")})`);
  return found;
}

/** Names of the benchmarks the built-in runner (`a2a-bench run`) runs, sorted. */
export function knownBenchmarks(): string[] {
  return benchmarkDescriptors()
    .filter((d) => d.runner.kind === "built-in")
    .map((d) => d.name)
    .sort();
}

/** Whether `name` is run by an external program (the green agent starts the operator's command). */
export function isExternalBenchmark(name: string): boolean {
  return registry.get(name)?.runner.kind === "external";
}

/** The runner plug-in for `name`; throws a UsageError naming the known ones. */
export async function getBenchmark(name: string): Promise<BenchmarkDefinition<BenchmarkItem>> {
  const runner = registry.get(name)?.runner;
  if (runner?.kind !== "built-in")
    throw new UsageError(`unknown benchmark "${name}" (known: ${knownBenchmarks().join(", ")})`);
  return runner.load();
}

export {
  defineBenchmark,
  INTERACTIONS,
  type BenchmarkDescriptor,
  type BenchmarkRunner,
  type HostNeed,
  type Interaction,
  type ParticipantConfig,
} from "./descriptor.js";
export { GoldError, type GoldAnswer, type GoldAnswerer, type GoldContext } from "./gold.js";
