import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installPackages } from "../../../../src/benchmarks/sparc/packages/install.js";
import { PackageSourceUnreachableError } from "../../../../src/benchmarks/sparc/packages/errors.js";
import { packageSetKey } from "../../../../src/benchmarks/sparc/packages/cache.js";
import { closedPort } from "../../../support/closed-port.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "sparc-pkg-"));
  dirs.push(d);
  return d;
}

const REGISTRY = "https://registry.npmjs.org/";
const registryReachable = await fetch(REGISTRY + "is-number", { signal: AbortSignal.timeout(8000) })
  .then((r) => r.ok)
  .catch(() => false);
if (!registryReachable) {
  process.stderr.write(`[sparc] SKIP real npm install: ${REGISTRY} is unreachable from this machine\n`);
}

describe("package installs", () => {
  it("keys a package set by its content, not its order", () => {
    expect(packageSetKey("javascript", ["b", "a", "a"], "r")).toBe(packageSetKey("javascript", ["a", "b"], "r"));
    expect(packageSetKey("javascript", ["a"], "r1")).not.toBe(packageSetKey("javascript", ["a"], "r2"));
  });

  it.skipIf(!registryReachable)(
    "installs is-number from the npm registry into the cache, then reuses it without network",
    async () => {
      const cacheDir = await tempDir();
      const first = await installPackages(["is-number@7.0.0"], "javascript", { cacheDir, npmRegistry: REGISTRY });
      expect(first).not.toBeNull();
      expect(first!.cached).toBe(false);
      expect(first!.dir.startsWith(cacheDir)).toBe(true);
      expect(first!.env).toEqual({ NODE_PATH: first!.dir });
      expect((await stat(join(first!.dir, "is-number", "package.json"))).isFile()).toBe(true);
      // Second run: with an empty PATH npm could not even start, so success proves the cached set was used.
      const second = await installPackages(["is-number@7.0.0"], "javascript", {
        cacheDir,
        npmRegistry: REGISTRY,
        env: { PATH: "" },
      });
      expect(second!.cached).toBe(true);
      expect(second!.dir).toBe(first!.dir);
      // No temp directories left behind.
      expect((await readdir(join(cacheDir, "npm"))).filter((n) => n.includes(".tmp-"))).toEqual([]);
    },
    120_000,
  );

  it("reports an unreachable npm registry naming the package and the source, installing nothing", async () => {
    const cacheDir = await tempDir();
    const source = `http://127.0.0.1:${await closedPort()}/`;
    const err = await installPackages(["left-pad@1.3.0"], "javascript", { cacheDir, npmRegistry: source }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PackageSourceUnreachableError);
    const e = err as PackageSourceUnreachableError;
    expect(e.code).toBe("E_PACKAGE_SOURCE_UNREACHABLE");
    expect(e.packageName).toBe("left-pad");
    expect(e.source).toBe(source);
    expect(e.message).toMatch(
      /cannot install javascript package "left-pad": package source http:\/\/127\.0\.0\.1:\d+\/ is unreachable \(ECONNREFUSED/,
    );
    await expect(stat(join(cacheDir, "npm"))).rejects.toThrow();
  });

  it("reports an unreachable Python index the same way", async () => {
    const cacheDir = await tempDir();
    const source = `http://127.0.0.1:${await closedPort()}/simple/`;
    const err = await installPackages(["pytest"], "python", { cacheDir, pipIndexUrl: source }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PackageSourceUnreachableError);
    expect((err as Error).message).toContain(`python package "pytest": package source ${source} is unreachable`);
  });
});
