/**
 * What a run gives the local sandbox at its start (warmUp): python modules the
 * fork server loads once before any job (each job finds them imported, and
 * what a job changes in one stays in that job), and a standard-library-only
 * interpreter started without site. Given after the fork server started, they
 * are not claimed.
 */
import { describe, expect, it } from "vitest";
import { createSandbox } from "../../../src/sandbox/index.js";
import { silentLogger } from "../../../src/util/logger.js";

const py = (code: string) => ({ language: "python" as const, code, timeoutMs: 20_000 });
const MODULE = "_test_preloaded";
const SOURCE = "import sys\nloaded_in = __import__('os').getpid()\nvalue = [1]\n";

describe("local sandbox: modules loaded once where jobs are forked", () => {
  it("every job finds the module already imported; a job's change to it stays in that job", async () => {
    const sb = await createSandbox({ backend: "local", logger: silentLogger() });
    try {
      expect(sb.hasPythonModule?.(MODULE)).toBe(false);
      sb.warmUp?.({ pythonModules: { [MODULE]: SOURCE }, pythonStdlibOnly: true });
      expect(sb.hasPythonModule?.(MODULE)).toBe(true);
      expect(sb.hasPythonModule?.("other")).toBe(false);
      const job = `import os, sys\nimport ${MODULE} as m\nm.value.append(2)\nprint(m.loaded_in != os.getpid(), m.value, sys.flags.no_site)`;
      const [a, b] = await sb.execMany([py(job), py(job)]);
      // Loaded in the server (another pid), before the job; each job starts from the server's copy; no site.
      expect(a!.stdoutTail).toBe("True [1, 2] 1\n");
      expect(b!.stdoutTail).toBe("True [1, 2] 1\n");
    } finally {
      await sb.close();
    }
  });

  it("modules given after the first job are not claimed, and jobs keep their site", async () => {
    const sb = await createSandbox({ backend: "local", logger: silentLogger() });
    try {
      const first = await sb.exec(py("import sys\nprint(sys.flags.no_site)"));
      expect(first.stdoutTail).toBe("0\n");
      sb.warmUp?.({ pythonModules: { [MODULE]: SOURCE }, pythonStdlibOnly: true });
      expect(sb.hasPythonModule?.(MODULE)).toBe(false);
      const r = await sb.exec(py(`import ${MODULE}`));
      expect(r.exitCode).toBe(1);
      expect(r.stderrTail).toMatch(/ModuleNotFoundError/);
    } finally {
      await sb.close();
    }
  });
});
