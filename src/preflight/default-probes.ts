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
import type { BenchmarkName } from "../request-config/config.js";
import { resolveRunOptions } from "../runner/options.js";
import { createSandbox } from "../sandbox/index.js";
import type { DatasetLoader, ParticipantProbe, SandboxProber, ToolFinding, ToolProber } from "./checks.js";
import { execFile } from "node:child_process";
import { resolveCommand } from "./resolve-command.js";
import { createA2AParticipant } from "../a2a/participant-client.js";

/** Load through the benchmark's plug-in (the same code a run uses) and count items. */
export const loadDatasetItems: DatasetLoader = async (benchmark: BenchmarkName, dataset: string) => {
  const def = await getBenchmark(benchmark);
  const scratch = mkdtempSync(join(tmpdir(), "a2a-preflight-"));
  try {
    const options = resolveRunOptions({ benchmark, dataset, run_id: "preflight" }, { out: scratch });
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

/** Whether `python` can import `module` (the interpreter the local sandbox runs is the python3 on PATH). */
function canImport(python: string, module: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(
      python,
      ["-c", `import ${module}; print(${module}.__file__)`],
      { env, encoding: "utf8", timeout: 20_000 },
      (err, out) => resolve(err ? null : out.trim()),
    );
  });
}

/** The tools each benchmark needs on this host (local sandbox), looked up on `env.PATH`. */
export function toolProber(env: NodeJS.ProcessEnv = process.env): ToolProber {
  return async (benchmark, backend) => {
    const findings: ToolFinding[] = [];
    const program = (tool: string, fix: string): string | undefined => {
      const found = resolveCommand(tool, env);
      findings.push({ tool, ok: found !== undefined, detail: found ?? "not on PATH", fix });
      return found;
    };
    if (benchmark === "smi-inhabit") return findings; // the external runner brings its own
    if (backend === "local") {
      const python = program("python3", "install python3 (`apt-get install -y python3`)");
      program("bwrap", "install bubblewrap (`apt-get install -y bubblewrap`) for full isolation");
      if (benchmark === "swebench" && python) {
        const at = await canImport(python, "pytest", env);
        findings.push({
          tool: "pytest",
          ok: at !== null,
          detail: at ?? `${python} cannot import pytest`,
          fix: `install pytest for ${python} (\`${python} -m pip install pytest\` or \`apt-get install -y python3-pytest\`)`,
        });
      }
      if (benchmark === "redcode") {
        const root = process.getuid?.() === 0;
        findings.push({
          tool: "root (RedCode fixtures)",
          ok: root,
          detail: root ? "running as root" : `running as uid ${process.getuid?.() ?? "?"}`,
          fix: "RedCode's fixtures are copy-on-write overlays of /etc, /usr, /var, which need root with bwrap: run the green agent as root (in a container: --user 0), or use sandbox e2b",
        });
      }
    }
    if (benchmark === "swebench") program("git", "install git (`apt-get install -y git`)");
    // HumanEval's trusted checker runs on the host with every backend (src/benchmarks/humaneval/checker.ts).
    if (benchmark === "humaneval" && backend !== "local")
      program("python3", "install python3 on the host: HumanEval's checker runs there (`apt-get install -y python3`)");
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
