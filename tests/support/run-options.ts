/**
 * A run's options as every entry resolves them (runner/options.ts): the
 * schema's defaults applied, so tests hold the same type the engine gets.
 * `concurrency` is 1 unless given (one item at a time), `run_id` "test".
 */
import { resolveRunOptions, type RunOptions } from "../../src/runner/options.js";
import { offeredInteractions } from "../../src/benchmarks/index.js";

export function testRunOptions(over: Partial<RunOptions> & Pick<RunOptions, "benchmark">): RunOptions {
  const { out = "/nonexistent/out", ...config } = over;
  return resolveRunOptions(offeredInteractions, { run_id: "test", concurrency: 1, ...config }, { out });
}
