import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { groupMembers, stopGroup, signalGroup } from "../../src/process/index.js";
import { alive, fixture } from "./helpers.js";

/** A detached TERM-ignoring leader with a grandchild in its group; resolves with both pids once ready. */
async function startGroup(): Promise<[number, number]> {
  const child = spawn(process.execPath, [fixture("with-grandchild.mjs")], {
    detached: true,
    stdio: ["ignore", "pipe", "ignore"],
  });
  child.on("error", () => {});
  const line = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(String(d))));
  return line.trim().split(" ").map(Number) as [number, number];
}

describe("process groups", () => {
  test("stopGroup: TERM, the grace, then KILL of every member", async () => {
    const [leader, grandchild] = await startGroup();
    const o = await stopGroup(leader, 200);
    expect(o).toMatchObject({ pgid: leader, terminated: true, forcefullyTerminated: true, survivors: 0 });
    expect(o.durationMs).toBeGreaterThanOrEqual(190);
    expect(alive(grandchild)).toBe(false);
  });

  test("stopping a group whose members are all gone needs no SIGKILL and waits no grace", async () => {
    const [leader] = await startGroup();
    signalGroup(leader, "SIGKILL");
    // Wait until the group is empty (the test's timeout bounds the wait, not a guessed 2 s).
    while (groupMembers(leader).length > 0) await new Promise((r) => setTimeout(r, 20));
    // `terminated` may be true here: a zombie an init that does not reap leaves behind still takes signals.
    // A grace of a minute: returning well inside it means no grace was waited, however busy the machine.
    const o = await stopGroup(leader, 60_000);
    expect(o).toMatchObject({ forcefullyTerminated: false, survivors: 0 });
    expect(o.durationMs).toBeLessThan(30_000);
  });
});
