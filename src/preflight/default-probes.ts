/**
 * The real probes behind preflight's checks: the benchmark manager's own
 * loader for datasets, the sandbox factory running a tiny program, the CLI's
 * smoke client. Tests replace any of them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchmarkDescriptor, getBenchmark, knownBenchmarks } from "../benchmarks/index.js";
import { sandboxBackend, sandboxBackends } from "../sandbox/registry.js";
import { preflightNeeds } from "./needs.js";
import { silentLogger } from "../util/logger.js";
import { BenchError, assertNever } from "../util/errors.js";
import { offeredInteractions, type BenchmarkName } from "../benchmarks/index.js";
import { resolveRunOptions } from "../runner/options.js";
import { createSandbox } from "../sandbox/index.js";
import type { DatasetLoader, ParticipantProbe, SandboxProber, ToolFinding, ToolProber } from "./checks.js";
import { runCommand, succeeded } from "../process/index.js";
import { resolveCommand } from "./resolve-command.js";
import { createA2AParticipant } from "../a2a/client/participant-client.js";

/** Load through the benchmark's plug-in (the same code a run uses) and count items. */
export const loadDatasetItems: DatasetLoader = async (benchmark: BenchmarkName, dataset: string) => {
  const def = await getBenchmark(benchmark);
  const scratch = mkdtempSync(join(tmpdir(), "a2a-preflight-"));
  try {
    const options = resolveRunOptions(
      offeredInteractions,
      { benchmark, dataset, run_id: "preflight" },
      { out: scratch },
    );
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
      throw new BenchError(
        "E_NO_SANDBOX",
        `print(6*7) exited ${out.exitCode ?? out.signal ?? "?"}${out.timedOut ? " (timed out)" : ""}: ${out.stderrTail.slice(-300)}`,
      );
    return { isolation: sandbox.isolation, warnings: sandbox.warnings, output: out.stdoutTail };
  } finally {
    await sandbox.close();
  }
};

/** Bound on one import check, ms (pytest's import takes a few hundred ms cold). */
const IMPORT_CHECK_TIMEOUT_MS = 20_000;

/** Whether `python` can import `module` (the interpreter the local sandbox runs is the python3 on PATH). */
async function canImport(python: string, module: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const o = await runCommand(python, ["-c", `import ${module}; print(${module}.__file__)`], {
    env,
    timeoutMs: IMPORT_CHECK_TIMEOUT_MS,
  });
  return succeeded(o) ? o.stdout.trim() : null;
}

/** What the benchmark and the sandbox backend need on this host (preflight/needs.ts), looked up on `env.PATH`. */
export function toolProber(env: NodeJS.ProcessEnv = process.env): ToolProber {
  return async (benchmark, backend) => {
    const findings: ToolFinding[] = [];
    for (const need of preflightNeeds(benchmarkDescriptor(benchmark), sandboxBackend(backend), sandboxBackends())) {
      switch (need.kind) {
        case "capability":
          findings.push({ tool: need.tool, ok: need.ok, detail: need.detail, fix: need.fix });
          break;
        case "program": {
          const found = resolveCommand(need.command?.(env) ?? need.tool, env);
          findings.push({ tool: need.tool, ok: found !== undefined, detail: found ?? "not on PATH", fix: need.fix });
          break;
        }
        case "python-module": {
          // The interpreter the local sandbox and the host-side checkers run is the python3 on PATH.
          const python = resolveCommand("python3", env);
          if (!python) break; // reported as the missing python3
          const at = await canImport(python, need.module, env);
          findings.push({
            tool: need.module,
            ok: at !== null,
            detail: at ?? `${python} cannot import ${need.module}`,
            fix: need.fix(python),
          });
          break;
        }
        case "root": {
          const root = process.getuid?.() === 0;
          findings.push({
            tool: need.tool,
            ok: root,
            detail: root ? "running as root" : `running as uid ${process.getuid?.() ?? "?"}`,
            fix: need.fix,
          });
          break;
        }
        default:
          assertNever(need);
      }
    }
    return findings;
  };
}

/** Time limit of the participant check in preflight, ms. */
const PARTICIPANT_PROBE_TIMEOUT_MS = 10_000;

/** The runner's own participant check (agent card under the URL's path), once. */
export const probeParticipant: ParticipantProbe = async (url) => {
  const p = createA2AParticipant({ url, timeoutMs: PARTICIPANT_PROBE_TIMEOUT_MS, attempts: 1, logger: silentLogger() });
  try {
    await p.check!(AbortSignal.timeout(PARTICIPANT_PROBE_TIMEOUT_MS));
  } finally {
    await p.close();
  }
};
