import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { groupAlive, killGroupsSync, signalGroup, waitGroupGone } from "../../src/process/index.js";
import { alive, fixture } from "./helpers.js";

/** A detached TERM-ignoring leader with a grandchild in its group; resolves with both pids once ready. */
async function startGroup(): Promise<[number, number]> {
  const child = spawn(process.execPath, [fixture("with-grandchild.mjs")], {
    detached: true,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const line = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(String(d))));
  return line.trim().split(" ").map(Number) as [number, number];
}

describe("group signals", () => {
  test("SIGTERM reaches the group but a TERM-ignoring group stays; waitGroupGone says so at its deadline", async () => {
    const [leader, grandchild] = await startGroup();
    try {
      expect(groupAlive(leader)).toBe(true);
      expect(signalGroup(leader, "SIGTERM")).toBe(true);
      const t0 = Date.now();
      expect(await waitGroupGone(leader, 150)).toBe(false);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(140);
      expect(alive(grandchild)).toBe(true);
    } finally {
      signalGroup(leader, "SIGKILL");
    }
    expect(await waitGroupGone(leader, 2_000)).toBe(true);
    expect(alive(grandchild)).toBe(false);
  });

  test("killGroupsSync kills every group given, at once", async () => {
    const groups = await Promise.all([startGroup(), startGroup()]);
    killGroupsSync(groups.map(([leader]) => leader));
    for (const [leader, grandchild] of groups) {
      expect(await waitGroupGone(leader, 2_000)).toBe(true);
      expect(alive(grandchild)).toBe(false);
    }
  });

  test("a group that no longer exists: signalGroup is false, groupAlive is false", async () => {
    const [leader] = await startGroup();
    signalGroup(leader, "SIGKILL");
    expect(await waitGroupGone(leader, 2_000)).toBe(true);
    expect(groupAlive(leader)).toBe(false);
  });
});
