/**
 * The files `a2a-bench new backend NAME` writes: a working backend that runs each program through the
 * local backend (this host, bubblewrap) under its own name, to be replaced by the new engine's calls,
 * and a test. Each file passes the gate of src/ as written (tests/scaffold/ checks it).
 */
import type { ScaffoldNames } from "./names.js";

function descriptor(n: ScaffoldNames): string {
  return `/** ${n.name}: runs each program through the local backend (this host, bubblewrap), under its own name. */
import { defineSandboxBackend, type SandboxFactory } from "../backend.js";

export const ${n.ident} = defineSandboxBackend({
  name: "${n.name}",
  summary: "programs run through the local backend (this host, bubblewrap)",
  // The local backend's levels: its sandboxes report what the local one runs at.
  isolationLevels: ["bwrap", "unshare", "none"],
  fullIsolation: ["bwrap"],
  // On this host: the green agent checks the host's isolation probe before accepting a request for it.
  hostIsolation: true,
  // Programs with their files only: no environments, host directories, overlays or root.
  capabilities: new Set([]),
  preflight: {
    env: [],
    programs: [{ tool: "python3", fix: "install python3 (\`apt-get install -y python3\`)" }],
    unavailableFix: "install python3 and bubblewrap (\`apt-get install python3 bubblewrap\`)",
  },
  // Nothing selects an engine or a service: the green agent passes no extra variable to its runners for it.
  selectionEnv: { names: [], prefixes: [] },
  load: async (): Promise<SandboxFactory> => (await import("./${n.name}-sandbox.js")).create${n.pascal}Sandbox,
});
`;
}

function sandbox(n: ScaffoldNames): string {
  return `/** ${n.name}'s sandbox: each program runs in a local sandbox; this one answers under its own name. */
import type { SandboxFactory } from "../backend.js";
import type { SandboxCapability } from "../capabilities.js";
import { localBackend } from "../local/descriptor.js";
import type { ExecOutcome, ExecRequest, Sandbox } from "../types.js";

class ${n.pascal}Sandbox implements Sandbox {
  readonly backend = "${n.name}";
  readonly capabilities: ReadonlySet<SandboxCapability> = new Set();

  constructor(private readonly inner: Sandbox) {}

  get isolation(): Sandbox["isolation"] {
    return this.inner.isolation;
  }

  get warnings(): readonly string[] {
    return this.inner.warnings;
  }

  exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecOutcome> {
    return this.inner.exec(req, signal);
  }

  execMany(reqs: ExecRequest[], signal?: AbortSignal): Promise<ExecOutcome[]> {
    return this.inner.execMany(reqs, signal);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export const create${n.pascal}Sandbox: SandboxFactory = async (options, limits) => {
  const createLocal = await localBackend.load();
  return new ${n.pascal}Sandbox(await createLocal(options, limits));
};
`;
}

function test(n: ScaffoldNames): string {
  return `import { describe, expect, it } from "vitest";
import { createSandbox, sandboxBackendNames } from "../../../src/sandbox/index.js";
import { silentLogger } from "../../../src/util/logger.js";

describe("${n.name} sandbox backend", () => {
  it("is registered, runs a program and reports itself", async () => {
    expect(sandboxBackendNames()).toContain("${n.name}");
    const sandbox = await createSandbox({ backend: "${n.name}", logger: silentLogger() });
    try {
      const out = await sandbox.exec({ language: "python", code: "print(6*7)", timeoutMs: 60_000 });
      expect(out).toMatchObject({ exitCode: 0, timedOut: false });
      expect(out.stdoutTail.trim()).toBe("42");
      expect(sandbox.backend).toBe("${n.name}");
    } finally {
      await sandbox.close();
    }
  });
});
`;
}

/** The backend's files, by path relative to the package root. */
export function backendFiles(n: ScaffoldNames): Record<string, string> {
  const dir = `src/sandbox/${n.name}`;
  return {
    [`${dir}/descriptor.ts`]: descriptor(n),
    [`${dir}/${n.name}-sandbox.ts`]: sandbox(n),
    [`tests/sandbox/${n.name}/${n.name}-sandbox.test.ts`]: test(n),
  };
}
