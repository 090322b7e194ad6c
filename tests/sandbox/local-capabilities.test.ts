import { afterAll, describe, expect, it } from "vitest";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localCapabilities } from "../../src/sandbox/local/local-capabilities.js";
import type { HostTools, LocalIsolation } from "../../src/sandbox/local/probe.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { silentLogger } from "../../src/util/logger.js";

const tools = (isRoot: boolean, unshare: string | null): HostTools => ({
  bwrap: "/usr/bin/bwrap",
  unshare,
  setpriv: null,
  prlimit: null,
  python: "/usr/bin/python3",
  pythonPrefixes: [],
  pythonVenv: false,
  node: "/usr/bin/node",
  isRoot,
});
const caps = (level: LocalIsolation, t: HostTools): string[] => [...localCapabilities({ level, tools: t })].sort();

describe("local backend capabilities", () => {
  it("binds, uid 0 and environments only inside bubblewrap (as root only with setpriv); overlays only there on a root host with unshare; never images", () => {
    expect(caps("bwrap", tools(true, "/usr/bin/unshare"))).toEqual([
      "host-binds",
      "host-workdir",
      "overlays",
      "userns-root",
    ]);
    expect(caps("bwrap", { ...tools(true, "/usr/bin/unshare"), setpriv: "/usr/bin/setpriv" })).toEqual([
      "environments",
      "host-binds",
      "host-workdir",
      "overlays",
      "userns-root",
    ]);
    expect(caps("bwrap", tools(false, "/usr/bin/unshare"))).toEqual([
      "environments",
      "host-binds",
      "host-workdir",
      "userns-root",
    ]);
    expect(caps("bwrap", tools(true, null))).toEqual(["host-binds", "host-workdir", "userns-root"]);
    expect(caps("unshare", tools(true, "/usr/bin/unshare"))).toEqual(["host-workdir"]);
    expect(caps("none", tools(true, "/usr/bin/unshare"))).toEqual(["host-workdir"]);
  });

  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("below bubblewrap an asRoot request is refused before anything runs (no uid 0 without a user namespace)", async () => {
    const sb = await createSandbox({
      backend: "local",
      logger: silentLogger(),
      backendOptions: { forceIsolation: "none" },
    });
    try {
      expect(sb.capabilities.has("userns-root")).toBe(false);
      const work = await mkdtemp(join(tmpdir(), "a2a-caps-"));
      dirs.push(work);
      const o = await sb.exec({ language: "bash", code: "touch ran", timeoutMs: 5000, workDir: work, asRoot: true });
      expect(o.infraError).toContain("lacks the capability 'userns-root'");
      expect(o.exitCode).toBeNull();
      expect(await readdir(work)).toEqual([]);
      // The same request without asRoot runs: host-workdir is offered at every level.
      const plain = await sb.exec({ language: "bash", code: "touch ran", timeoutMs: 5000, workDir: work });
      expect(plain).toMatchObject({ exitCode: 0 });
      expect(await readdir(work)).toEqual(["ran"]);
    } finally {
      await sb.close();
    }
  });
});
