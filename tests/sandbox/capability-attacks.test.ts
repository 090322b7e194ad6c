/**
 * Requests that ask for more than a backend offers, from every side: each is refused before anything runs,
 * never run with less isolation than it asked for (local below bubblewrap, the e2b stand-in, docker).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.js";
import type { ExecRequest } from "../../src/sandbox/types.js";
import { requestCapabilities } from "../../src/sandbox/capabilities.js";
import { startE2bStandIn, type StandInServer } from "../../src/sandbox/e2b/stand-in-server.js";
import { silentLogger } from "../../src/util/logger.js";
import { createDockerSandbox } from "../../src/sandbox/docker/docker-sandbox.js";
import { DEFAULT_LIMITS } from "../../src/sandbox/limits.js";
import { BASE_IMAGE, testEngine } from "../support/container-engine.js";

const engine = await testEngine();

/** A request field set the way an untyped caller (JSON, a plug-in in plain JS) might set it. */
const loose = (req: Record<string, unknown>): ExecRequest => req as unknown as ExecRequest;

describe("capability refusals under attack", () => {
  const dirs: string[] = [];
  const workDir = async (): Promise<string> => {
    const d = await mkdtemp(join(tmpdir(), "a2a-cap-atk-"));
    dirs.push(d);
    return d;
  };
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("asRoot set to any value but false or absent needs userns-root (a truthy non-boolean is not a way around it)", () => {
    for (const asRoot of [true, 1, "yes", {}, "false"])
      expect(requestCapabilities(loose({ language: "bash", code: "", timeoutMs: 1, asRoot }))).toEqual(["userns-root"]);
    for (const asRoot of [false, undefined])
      expect(requestCapabilities(loose({ language: "bash", code: "", timeoutMs: 1, asRoot }))).toEqual([]);
  });

  describe.each(["none", "unshare"] as const)("local at %s", (level) => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await createSandbox({ backend: "local", logger: silentLogger(), backendOptions: { forceIsolation: level } });
    });
    afterAll(async () => {
      await sb?.close();
    });

    it.each([
      ["a truthy non-boolean asRoot", { asRoot: 1 }],
      ["binds", { binds: [{ host: "/etc", target: "/mnt/etc", writable: false }] }],
      ["overlays", { overlays: [{ target: "/usr", upperDir: "/nonexistent" }] }],
    ])("%s is refused before anything runs", async (_what, extra) => {
      const work = await workDir();
      const o = await sb.exec(
        loose({ language: "bash", code: "id -u > ran", timeoutMs: 5000, workDir: work, ...extra }),
      );
      expect(o.infraError).toMatch(/lacks the capabilit/);
      expect(o.exitCode).toBeNull();
      expect(await readdir(work)).toEqual([]);
    });
  });

  describe("the e2b stand-in", () => {
    let executor: Sandbox;
    let standIn: StandInServer;
    let sb: Sandbox;
    beforeAll(async () => {
      executor = await createSandbox({ backend: "local", logger: silentLogger() });
      standIn = await startE2bStandIn({ executor, apiKey: "test-key" });
      sb = await createSandbox({
        backend: "e2b",
        logger: silentLogger(),
        backendOptions: { apiKey: "test-key", apiUrl: standIn.url, sandboxUrl: standIn.url },
      });
    });
    afterAll(async () => {
      await sb?.close();
      await standIn?.close();
      await executor?.close();
    });

    it("a batch with one request needing a host capability is refused whole, and nothing reaches the remote", async () => {
      const before = standIn.counts["POST /execute"] ?? 0;
      const work = await workDir();
      const out = await sb.execMany([
        { language: "python", code: "print(1)", timeoutMs: 5000 },
        loose({ language: "bash", code: "id -u > ran", timeoutMs: 5000, workDir: work }),
        loose({ language: "bash", code: "id -u", timeoutMs: 5000, asRoot: "yes" }),
      ]);
      for (const o of out) expect(o.infraError).toMatch(/lacks the capabilit/);
      expect(standIn.counts["POST /execute"] ?? 0).toBe(before);
      expect(await readdir(work)).toEqual([]);
    });
  });

  describe.skipIf(engine.env === null)("docker", () => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await createDockerSandbox({
        limits: DEFAULT_LIMITS,
        logger: silentLogger(),
        image: BASE_IMAGE,
        owner: "test-cap-atk",
        env: engine.env!,
      });
    });
    afterAll(async () => {
      await sb?.close();
    });

    it.each([
      ["a work dir", { workDir: "WORK" }],
      ["binds", { binds: [{ host: "WORK", target: "/mnt/w", writable: true }] }],
      ["overlays", { overlays: [{ target: "/usr", upperDir: "WORK" }] }],
      ["a truthy non-boolean asRoot", { asRoot: 1 }],
    ])(
      "%s is refused before any container runs the job",
      async (_what, extra) => {
        const work = await workDir();
        const withDir = JSON.parse(JSON.stringify(extra).replaceAll('"WORK"', JSON.stringify(work))) as object;
        const o = await sb.exec(loose({ language: "bash", code: "id -u > ran", timeoutMs: 20_000, ...withDir }));
        expect(o.infraError).toMatch(/lacks the capabilit/);
        expect(o.exitCode).toBeNull();
        expect(await readdir(work)).toEqual([]);
      },
      30_000,
    );
  });
});
