/**
 * The docker CLI wrapper names the engine it talked to in every failure: an operator whose run reached the
 * wrong engine (DOCKER_HOST not passed on, a stale context) reads which one it was. Real docker CLI.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliFailure, docker, engineName } from "../../../src/sandbox/docker/docker-cli.js";
import { jobImageProblem } from "../../../src/sandbox/docker/job-image.js";
import { testEngine } from "../../support/container-engine.js";

const engine = await testEngine();

describe("engineName", () => {
  it("is DOCKER_HOST, else Podman's CONTAINER_HOST, else the context, else says the CLI's default", () => {
    expect(engineName({ DOCKER_HOST: "unix:///run/a.sock", CONTAINER_HOST: "unix:///run/b.sock" })).toBe(
      "unix:///run/a.sock",
    );
    expect(engineName({ CONTAINER_HOST: "unix:///run/b.sock" })).toBe("unix:///run/b.sock");
    expect(engineName({ DOCKER_CONTEXT: "remote" })).toBe("docker context remote");
    expect(engineName({})).toMatch(/default engine \(DOCKER_HOST unset\)/);
  });
});

describe("a failed CLI call", () => {
  it("names the engine at DOCKER_HOST it could not reach", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docker-cli-"));
    try {
      const host = `unix://${join(dir, "no-engine.sock")}`;
      const r = await docker(["image", "inspect", "a2a-bench/none:latest"], {
        env: { ...process.env, DOCKER_HOST: host },
      });
      expect(r.exitCode).not.toBe(0);
      expect(r.engine).toBe(host);
      expect(cliFailure("docker image inspect", r)).toContain(`docker image inspect on engine ${host}: docker exited`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(engine.env === null)(
    `a missing image names the engine it is missing from${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
    async () => {
      const env = engine.env!;
      const problem = await jobImageProblem("a2a-bench/no-such-image:never", env);
      expect(problem).toMatch(/No such image|not found|image not known/i);
      expect(problem).toContain(`must be in engine ${env["DOCKER_HOST"] ?? engineName(env)}`);
    },
  );
});
