import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSwebenchBenchmark, gradingPath } from "../../../src/benchmarks/swebench/definition.js";
import { evaluateInContainer } from "../../../src/benchmarks/swebench/container/evaluate.js";
import type { SwebenchInstance } from "../../../src/benchmarks/swebench/instance.js";
import type { RunOptions } from "../../../src/runner/options.js";
import type { Participant } from "../../../src/a2a/shared/participant.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import { SandboxCapabilityError, type SandboxCapability } from "../../../src/sandbox/capabilities.js";
import { silentLogger } from "../../../src/util/logger.js";
import { testRunOptions } from "../../support/run-options.js";

const inst: SwebenchInstance = {
  instance_id: "o__r-1",
  repo: "o/r",
  base_commit: "abc",
  problem_statement: "fix it",
  test_patch: "diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-x\n+y\n",
  FAIL_TO_PASS: ["t.py::f"],
  PASS_TO_PASS: [],
};
const patch = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n";

/** A backend with `caps` that records every use: nothing may run when it is refused. */
function fakeBackend(caps: SandboxCapability[]): Sandbox & { used: string[] } {
  const used: string[] = [];
  return {
    backend: "e2b",
    isolation: "e2b",
    warnings: [],
    capabilities: new Set(caps),
    used,
    exec: async () => {
      used.push("exec");
      throw new Error("exec must not be reached");
    },
    execMany: async () => {
      used.push("execMany");
      throw new Error("execMany must not be reached");
    },
    close: async () => {},
  };
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "a2a-swe-caps-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const options = (): RunOptions =>
  testRunOptions({ benchmark: "swebench", out: root, run_id: "caps", per_task_timeout_seconds: 5 });

describe("swebench asks the sandbox for capabilities, never for a backend name", () => {
  it("environments of each instance's image first, else a host work dir (environments without images grade on the host)", () => {
    expect(gradingPath(fakeBackend(["environments", "images", "host-workdir"]))).toBe("environment");
    expect(gradingPath(fakeBackend(["environments", "host-workdir"]))).toBe("host");
    expect(gradingPath(fakeBackend(["host-workdir", "host-binds"]))).toBe("host");
  });

  it("a backend lacking environments (and a host work dir) is refused with the typed error, before the participant is asked or anything runs", async () => {
    const sandbox = fakeBackend(["host-binds", "overlays"]);
    const asked: unknown[] = [];
    const participant: Participant = {
      url: "http://127.0.0.1:1/",
      ask: async (req) => {
        asked.push(req);
        return { text: patch, data: [], state: "completed" };
      },
      close: async () => {},
    };
    const err = await createSwebenchBenchmark()
      .evaluate(
        { id: inst.instance_id, instance: inst },
        {
          options: options(),
          sandbox,
          participant,
          logger: silentLogger(),
          signal: new AbortController().signal,
          workDir: join(root, "work"),
        },
      )
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(SandboxCapabilityError);
    expect(err).toMatchObject({ code: "E_SANDBOX_CAPABILITY", backend: "e2b", capability: "environments" });
    expect((err as Error).message).toMatch(
      /^swebench needs the sandbox capability 'environments', which the e2b backend does not offer here; fix: .*sandbox: docker.*host-workdir/,
    );
    expect(sandbox.used).toEqual([]);
    expect(asked).toEqual([]);
    // No row, no artifacts: the refusal is not an item result.
    expect(await readdir(root)).toEqual([]);
  });

  it("the container path refuses a sandbox without environments before anything runs", async () => {
    const sandbox = fakeBackend(["host-workdir"]);
    const artifacts = join(root, "artifacts");
    await expect(
      evaluateInContainer(
        inst,
        patch,
        { modelName: "m", submitted: true },
        {
          options: options(),
          sandbox,
          participant: null,
          logger: silentLogger(),
          signal: new AbortController().signal,
          workDir: root,
        },
        artifacts,
      ),
    ).rejects.toMatchObject({ code: "E_SANDBOX_CAPABILITY", capability: "environments", caller: "swebench" });
    expect(sandbox.used).toEqual([]);
  });
});
