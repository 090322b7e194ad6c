/**
 * The tools SWE-bench's local execution needs, checked before any model patch
 * is applied, so a missing tool is reported as our infrastructure error and
 * never read as a test run that failed (which a patch could also cause).
 * The sandbox probe runs outside the instance's tree: nothing the patch
 * wrote (a conftest.py, a sitecustomize.py) can influence it.
 */
import type { Sandbox } from "../../sandbox/types.js";
import { runCommand } from "./git.js";
import { SWEBENCH_ERROR_CODES, SwebenchInfraError } from "./errors.js";

/** Limit of one probe, ms (python start-up plus an import; generous for a loaded machine). */
export const PROBE_TIMEOUT_MS = 30_000;

let gitProbe: Promise<void> | undefined;

/** Throws SwebenchInfraError(E_SWEBENCH_GIT_MISSING) unless `git --version` runs on the host. Checked once per process. */
export function ensureGit(): Promise<void> {
  gitProbe ??= runCommand("git", ["--version"], { cwd: process.cwd(), timeoutMs: PROBE_TIMEOUT_MS }).then((r) => {
    if (r.exitCode !== 0) {
      gitProbe = undefined;
      throw new SwebenchInfraError(
        SWEBENCH_ERROR_CODES.GIT_MISSING,
        `git is required on the host for SWE-bench (checkouts, patches) but \`git --version\` failed: ${r.stderr.trim().slice(-200) || `exit ${r.exitCode}`}; install git (apt-get install git)`,
      );
    }
  });
  return gitProbe;
}

const sandboxProbes = new WeakMap<Sandbox, Map<string, Promise<void>>>();

/**
 * Throws SwebenchInfraError unless `python3` starts in the sandbox and can
 * import every module in `modules`. Cached per sandbox and module list.
 */
export function ensureSandboxPython(sandbox: Sandbox, modules: readonly string[], signal?: AbortSignal): Promise<void> {
  const key = modules.join(",");
  let bySandbox = sandboxProbes.get(sandbox);
  if (!bySandbox) sandboxProbes.set(sandbox, (bySandbox = new Map<string, Promise<void>>()));
  let probe = bySandbox.get(key);
  if (!probe) {
    probe = probeSandbox(sandbox, modules, signal);
    bySandbox.set(key, probe);
    const map = bySandbox;
    // A cancelled probe says nothing about the tools: let the next instance probe again.
    probe.catch(() => {
      if (signal?.aborted) map.delete(key);
    });
  }
  return probe;
}

async function probeSandbox(sandbox: Sandbox, modules: readonly string[], signal?: AbortSignal): Promise<void> {
  const code = `command -v python3 >/dev/null || exit 127\npython3 -c 'import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)' ${modules.join(" ")}`;
  const r = await sandbox.exec(
    { language: "bash", code, timeoutMs: PROBE_TIMEOUT_MS, env: { PYTHONDONTWRITEBYTECODE: "1" } },
    signal,
  );
  if (r.infraError)
    throw new SwebenchInfraError(
      SWEBENCH_ERROR_CODES.TOOL_MISSING,
      `sandbox failed while checking for python3: ${r.infraError}`,
    );
  if (r.exitCode === 127) {
    throw new SwebenchInfraError(
      SWEBENCH_ERROR_CODES.PYTHON_MISSING,
      "python3 is not on the sandbox's PATH; SWE-bench's local execution runs the tests with it (apt-get install python3)",
    );
  }
  if (r.exitCode !== 0) {
    const tail = (r.stderrTail || r.stdoutTail).trim().split("\n").slice(-2).join(" | ");
    throw new SwebenchInfraError(
      SWEBENCH_ERROR_CODES.TOOL_MISSING,
      `the sandbox's python3 cannot import ${modules.join(", ")} (${tail || (r.timedOut ? "timed out" : `exit ${r.exitCode}`)}); install ${modules.includes("pytest") ? "pytest (apt-get install python3-pytest, or pip install pytest)" : modules.join(", ")} for that python3`,
    );
  }
}
