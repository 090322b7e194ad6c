/**
 * A participant filling the disk is bounded: an environment's writable layer is capped (one file by
 * RLIMIT_FSIZE at once; the layer's sum measured while each command runs and after it). Past the limit
 * the environment ends as the participant's failure — the episode ends `resource_limit` — the host's
 * disk keeps its space, and the sandbox goes on serving environments.
 */
import { describe, expect, it, afterAll, beforeAll } from "vitest";
import { randomBytes } from "node:crypto";
import { statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { DockerSandbox, createDockerSandbox } from "../../../src/sandbox/docker/docker-sandbox.js";
import { DEFAULT_LIMITS, ENVIRONMENT_DISK_BYTES, resolveLimits } from "../../../src/sandbox/limits.js";
import { environmentContainer } from "../../../src/sandbox/docker/docker-environment.js";
import { OWNER_LABEL } from "../../../src/sandbox/docker/owner.js";
import { environmentsOf, type Environment } from "../../../src/sandbox/environment.js";
import { shellEnvironment } from "../../../src/interactive/shell-environment.js";
import { runEpisode } from "../../../src/interactive/episode.js";
import { silentLogger } from "../../../src/util/logger.js";
import { BASE_IMAGE, containersLabelled, testEngine, waitNoneLabelled } from "../../support/container-engine.js";
import { ScriptedSender } from "../../interactive/fakes.js";
import { jsonTask } from "../../interactive/replies.js";

const engine = await testEngine();
const env = engine.env!;
const owner = `test-env-disk-${randomBytes(4).toString("hex")}`;
const LIMIT = 64 * 1024 * 1024;
const freeBytes = () => {
  const s = statfsSync(tmpdir());
  return s.bavail * s.bsize;
};

describe("the disk limit's settings", () => {
  it("defaults to ENVIRONMENT_DISK_BYTES, caps one file at it, and refuses a bad value naming the option", () => {
    expect(environmentContainer("img", "o", DEFAULT_LIMITS).fileSizeBytes).toBe(ENVIRONMENT_DISK_BYTES);
    expect(environmentContainer("img", "o", { ...DEFAULT_LIMITS, diskBytes: LIMIT }).fileSizeBytes).toBe(LIMIT);
    expect(() => resolveLimits({ diskBytes: -1 })).toThrow(/limits\.diskBytes must be a positive integer/);
    expect(resolveLimits({ diskBytes: LIMIT }).diskBytes).toBe(LIMIT);
  });
});

describe.skipIf(engine.env === null)(
  `an environment's disk${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    let sb: DockerSandbox;
    beforeAll(async () => {
      sb = await createDockerSandbox({
        limits: { ...DEFAULT_LIMITS, diskBytes: LIMIT },
        logger: silentLogger(),
        image: BASE_IMAGE,
        owner,
        env,
      });
    });
    afterAll(async () => {
      await sb?.close();
      expect(await waitNoneLabelled(env, OWNER_LABEL, owner, 5000)).toEqual([]);
    });
    const open = (): Promise<Environment> => environmentsOf(sb, "test").openEnvironment({ image: BASE_IMAGE, owner });

    it("one endless file stops at the limit at once; the environment lives on", async () => {
      const e = await open();
      try {
        const yes = await e.exec(["bash", "-c", "yes > /root/fill; stat -c %s /root/fill"], {
          timeoutMs: 60_000,
          streams: "separate",
        });
        expect(yes.stderr).toMatch(/File size limit exceeded/);
        expect(Number(yes.output.trim())).toBe(LIMIT);
        expect(yes.limitExceeded).toBeUndefined();
        const after = await e.exec(["bash", "-c", "rm /root/fill; echo alive"], { timeoutMs: 30_000 });
        expect(after).toMatchObject({ exitCode: 0, output: "alive\n" });
      } finally {
        await e.close();
      }
    }, 120_000);

    it("many files past the limit end the episode resource_limit; the host keeps its space; the sandbox goes on", async () => {
      const before = freeBytes();
      const e = await open();
      const participant = new ScriptedSender([
        jsonTask({ kind: "exec_request", command: "echo warm-up" }),
        // fallocate is instant; dd then writes; each file stays under the per-file cap, the sum goes past.
        jsonTask({
          kind: "exec_request",
          command:
            "for i in $(seq 1 40); do fallocate -l 16M /root/f$i 2>/dev/null || dd if=/dev/zero of=/root/f$i bs=1M count=16 status=none; done; sleep 20; echo never-seen",
        }),
        jsonTask({ kind: "exec_request", command: "echo not-run" }),
      ]);
      let record;
      try {
        const t0 = performance.now();
        record = await runEpisode({
          instruction: "x",
          participant,
          environment: shellEnvironment(e, { workdir: "/root" }),
        });
        // Stopped while it ran (the measurement every second), not at its 20 s sleep's end.
        expect(performance.now() - t0).toBeLessThan(15_000);
        // Later calls are refused as the participant's, never as ours.
        const later = await e.exec(["true"], { timeoutMs: 10_000 });
        expect(later.limitExceeded).toMatch(/disk limit/);
        expect(later.infraError).toBeUndefined();
        await expect(e.readFile("/etc/hostname")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
      } finally {
        await e.close();
      }
      expect(record).toMatchObject({ exit_status: "resource_limit", commands: 2 });
      expect(record.error).toMatchObject({ code: "E_RESOURCE_LIMIT" });
      expect(record.error?.message).toMatch(/past its limit of 64\.0 MiB \(limits\.diskBytes\)/);
      expect(participant.payloads()).toHaveLength(2);
      // What it wrote went with the container (allowing for other writers on this host).
      expect(before - freeBytes()).toBeLessThan(LIMIT * 4);
      expect(await containersLabelled(env, OWNER_LABEL, owner)).toEqual([]);
      // The run goes on: the next environment of the same sandbox works.
      const next = await open();
      try {
        expect(await next.exec(["sh", "-c", "echo fine"], { timeoutMs: 30_000 })).toMatchObject({
          exitCode: 0,
          output: "fine\n",
        });
      } finally {
        await next.close();
      }
    }, 180_000);

    it("a limit broken by the last command still ends the episode resource_limit when `final` follows at once", async () => {
      const e = await open();
      const participant = new ScriptedSender([
        jsonTask({
          kind: "exec_request",
          command:
            "for i in $(seq 1 8); do fallocate -l 16M /root/g$i || dd if=/dev/zero of=/root/g$i bs=1M count=16 status=none; done",
        }),
        jsonTask({ kind: "final" }),
      ]);
      try {
        const record = await runEpisode({ instruction: "x", participant, environment: shellEnvironment(e) });
        expect(record).toMatchObject({ exit_status: "resource_limit", error: { code: "E_RESOURCE_LIMIT" } });
      } finally {
        await e.close();
      }
    }, 120_000);
  },
);
