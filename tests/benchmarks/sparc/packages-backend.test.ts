import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sparcBenchmark } from "../../../src/benchmarks/sparc/definition.js";
import { silentLogger } from "../../../src/util/logger.js";
import { testRunOptions } from "../../support/run-options.js";

let dir: string;
let config: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "sparc-packages-backend-"));
  config = join(dir, "config.json");
  await writeFile(
    config,
    JSON.stringify({
      type: "humaneval",
      name: "with-packages",
      packages: { python: ["six==1.16.0"] },
      testCases: [{ id: "one", input: "print(1)", expectedOutput: "1", language: "python" }],
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("SPARC package installs and the sandbox backend", () => {
  // The package cache lives on this host: only a backend that mounts host directories (local) reaches it.
  for (const sandbox of ["e2b", "docker"] as const) {
    it(`are refused up front with --sandbox ${sandbox}, before anything is installed`, async () => {
      await expect(
        sparcBenchmark.loadItems(
          testRunOptions({ benchmark: "sparc", sparc_config: config, sandbox, out: dir, run_id: "r" }),
          silentLogger(),
        ),
      ).rejects.toMatchObject({
        code: "E_SPARC_PACKAGES_E2B",
        message: `SPARC package installs need a sandbox that mounts host directories (--sandbox local); the ${sandbox} backend cannot mount the host package cache`,
      });
    });
  }
});
