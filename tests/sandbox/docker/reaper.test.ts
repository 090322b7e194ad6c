import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { reapOrphans } from "../../../src/sandbox/docker/reaper.js";
import { docker } from "../../../src/sandbox/docker/docker-cli.js";
import {
  MANAGED_LABEL,
  OWNER_HOST_LABEL,
  OWNER_LABEL,
  OWNER_PID_LABEL,
  OWNER_START_LABEL,
  ownerAlive,
  processStartTime,
} from "../../../src/sandbox/docker/owner.js";
import { BASE_IMAGE, containersLabelled, testEngine } from "../../support/container-engine.js";

const engine = await testEngine();
const env = engine.env!;

describe("owner identity", () => {
  it("is pid plus start time: a live process with another start time is not the owner", () => {
    const start = processStartTime(process.pid)!;
    expect(start).toMatch(/^[0-9]+$/);
    expect(ownerAlive(String(process.pid), start, hostname())).toBe(true);
    expect(ownerAlive(String(process.pid), String(Number(start) + 1), hostname())).toBe(false);
    const dead = spawnSync("true").pid;
    expect(ownerAlive(String(dead), start, hostname())).toBe(false);
    // Another host's containers are never judged from here.
    expect(ownerAlive(String(dead), start, `${hostname()}-elsewhere`)).toBe(true);
  });
});

describe.skipIf(engine.env === null)(`reaper${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`, () => {
  it("removes the containers of a dead owner and keeps those of a live one", async () => {
    const owner = `test-reaper-${randomBytes(4).toString("hex")}`;
    const dead = spawnSync("true").pid;
    const create = (pid: number, start: string) =>
      docker(
        [
          "create",
          "--network",
          "none",
          "--label",
          `${MANAGED_LABEL}=1`,
          "--label",
          `${OWNER_LABEL}=${owner}`,
          "--label",
          `${OWNER_PID_LABEL}=${pid}`,
          "--label",
          `${OWNER_START_LABEL}=${start}`,
          "--label",
          `${OWNER_HOST_LABEL}=${hostname()}`,
          BASE_IMAGE,
          "true",
        ],
        { env },
      );
    const orphan = (await create(dead, "1")).stdout.trim();
    const mine = (await create(process.pid, processStartTime(process.pid)!)).stdout.trim();
    try {
      const reaped = await reapOrphans(env);
      expect(reaped).toContain(orphan);
      expect(reaped).not.toContain(mine);
      expect((await containersLabelled(env, OWNER_LABEL, owner)).map((id) => mine.startsWith(id))).toEqual([true]);
    } finally {
      await docker(["rm", "-f", orphan, mine], { env });
    }
  });
});
