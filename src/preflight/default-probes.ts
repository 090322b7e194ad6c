/**
 * The real probes behind preflight's checks: the benchmark manager's own
 * loader for datasets, the sandbox factory running a tiny program, the CLI's
 * smoke client. Tests replace any of them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getBenchmark, knownBenchmarks } from "../benchmarks/index.js";
import { silentLogger } from "../util/logger.js";
import { BenchError } from "../util/errors.js";
import type { BenchmarkName, RunOptions } from "../runner/options.js";
import { createSandbox } from "../sandbox/index.js";
import type { DatasetLoader, SandboxProber } from "./checks.js";

/** Load through the benchmark's plug-in (the same code a run uses) and count items. */
export const loadDatasetItems: DatasetLoader = async (benchmark: BenchmarkName, dataset: string) => {
  const def = await getBenchmark(benchmark);
  const scratch = mkdtempSync(join(tmpdir(), "a2a-preflight-"));
  try {
    const options: RunOptions = { benchmark, dataset, out: scratch, run_id: "preflight" };
    return (await def.loadItems(options, silentLogger())).length;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
};

export { knownBenchmarks };

/** Time limit of the tiny sandbox program, ms (sandbox start included). */
const PROBE_TIMEOUT_MS = 20_000;

/** Create the configured sandbox, run `print(6*7)`, report isolation; always closes it. */
export const probeSandbox: SandboxProber = async (backend) => {
  const sandbox = await createSandbox({ backend, logger: silentLogger() });
  try {
    const out = await sandbox.exec({ language: "python", code: "print(6*7)\n", timeoutMs: PROBE_TIMEOUT_MS });
    if (out.infraError) throw new BenchError("E_NO_SANDBOX", out.infraError);
    if (out.exitCode !== 0)
      throw new BenchError("E_NO_SANDBOX", `print(6*7) exited ${out.exitCode ?? out.signal ?? "?"}${out.timedOut ? " (timed out)" : ""}: ${out.stderrTail.slice(-300)}`);
    return { isolation: sandbox.isolation, warnings: sandbox.warnings, output: out.stdoutTail };
  } finally {
    await sandbox.close();
  }
};
