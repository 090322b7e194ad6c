import { describe, expect, it } from "vitest";
import { checkOwnership } from "../../src/scenario/proc-info.js";
import { parseStat, procInfo, type ProcInfo } from "../../src/process/proc-scan.js";

describe("proc-info", () => {
  it("parses /proc/<pid>/stat even when comm holds spaces and parens", () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = "S";
    fields[2] = "4242"; // pgrp (field 5)
    fields[19] = "987654"; // starttime (field 22)
    expect(parseStat(`123 (evil) (name) ${fields.join(" ")}`)).toEqual({ state: "S", pgid: 4242, startTime: 987654 });
  });

  it("reads this process's identity", () => {
    const me = procInfo(process.pid);
    expect(me?.pid).toBe(process.pid);
    expect(me?.startTime).toBeGreaterThan(0);
    expect(me?.cmdline[0]).toContain("node");
  });

  it("tells ours, gone and reused apart", () => {
    const live: ProcInfo = { pid: 10, state: "S", pgid: 10, startTime: 500, cmdline: ["node", "cli.js", "green"] };
    const read = (pid: number): ProcInfo | undefined => (pid === 10 ? live : undefined);
    expect(checkOwnership({ pid: 10, startTime: 500, cmdline: ["node", "cli.js", "green"] }, read).kind).toBe("ours");
    expect(checkOwnership({ pid: 11, startTime: 500, cmdline: [] }, read).kind).toBe("gone");
    const byTime = checkOwnership({ pid: 10, startTime: 499, cmdline: ["node", "cli.js", "green"] }, read);
    expect(byTime.kind).toBe("reused");
    const byCmd = checkOwnership({ pid: 10, startTime: 500, cmdline: ["node", "cli.js", "purple"] }, read);
    expect(byCmd).toMatchObject({ kind: "reused" });
    expect(byCmd.kind === "reused" && byCmd.reason).toContain("not ours");
  });
});
