import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { groupMembers, parseStat, procInfo, readGroupMembers, signalGroup } from "../../src/process/index.js";
import { fixture } from "./helpers.js";

describe("the /proc reader", () => {
  test("parseStat reads state, group and start time past a command name with spaces and parens", () => {
    const fields = ["S", "1", "4242", "4242", ...Array.from({ length: 15 }, (_, i) => String(i)), "987654"];
    expect(parseStat(`123 (evil) (name x) ${fields.join(" ")}`)).toEqual({ state: "S", pgid: 4242, startTime: 987654 });
    expect(parseStat("garbage without a paren")).toBeUndefined();
    expect(parseStat("1 (x) S")).toBeUndefined();
  });

  test("procInfo describes this process and nothing for a pid that is gone", async () => {
    const me = procInfo(process.pid)!;
    expect(me.pid).toBe(process.pid);
    expect(me.state).toMatch(/^[RS]$/);
    expect(me.cmdline.length).toBeGreaterThan(0);
    expect(me.startTime).toBeGreaterThan(0);
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    const pid = child.pid!;
    await new Promise((r) => child.once("exit", r));
    expect(procInfo(pid)).toBeUndefined();
  });

  test("the scanner lists every live member of a group, and none once it is gone", async () => {
    const child = spawn(process.execPath, [fixture("with-grandchild.mjs")], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"],
    });
    const line = await new Promise<string>((resolve) => child.stdout.once("data", (d: Buffer) => resolve(String(d))));
    const [leader, grandchild] = line.trim().split(" ").map(Number) as [number, number];
    const members = readGroupMembers(leader)!;
    expect(members.map((m) => m.pid).sort()).toEqual([leader, grandchild].sort());
    expect(members.every((m) => m.pgid === leader && m.startTime > 0)).toBe(true);
    signalGroup(leader, "SIGKILL");
    const end = Date.now() + 2_000;
    while (groupMembers(leader).length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(groupMembers(leader)).toEqual([]);
  });
});
