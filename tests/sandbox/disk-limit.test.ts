/**
 * The disk limit shared by the environments: measured while a command runs and after it, a broken limit is the
 * participant's (`limitExceeded` now and on later calls, never `infraError`), and a measurement the participant
 * blocked counts as broken. Driven by a scripted backend, no disk involved.
 */
import { describe, expect, it } from "vitest";
import { DiskLimit, DISK_POLL_MS, type DiskMeasure } from "../../src/sandbox/disk-limit.js";
import type { EnvironmentExecOutcome } from "../../src/sandbox/environment.js";
import { duMeasure } from "../../src/sandbox/local/local-environment.js";

const ok: EnvironmentExecOutcome = { output: "done\n", exitCode: 0, timedOut: false, isCanceled: false, durationMs: 1 };

function scripted(measures: DiskMeasure[]) {
  let ended: string | null = null;
  const calls = { measured: 0 };
  const limit = new DiskLimit(100, {
    measure: () => Promise.resolve(measures[Math.min(calls.measured++, measures.length - 1)]),
    end: (why) => {
      ended = why;
      return Promise.resolve();
    },
    ended: () => ended !== null,
  });
  return { limit, calls, endedWith: () => ended };
}

describe("DiskLimit", () => {
  it("under the limit: the command's own outcome, measured once after it", async () => {
    const s = scripted([50]);
    expect(await s.limit.around({ timeoutMs: 1000 }, () => Promise.resolve(ok))).toBe(ok);
    expect(await s.limit.problem()).toBeNull();
    expect(s.calls.measured).toBe(1);
    expect(s.endedWith()).toBeNull();
  });

  it("the measurement after a command starts once the caller has the outcome (never part of its latency)", async () => {
    let callerHasIt = false;
    let startedAfterCaller: boolean | null = null;
    const limit = new DiskLimit(100, {
      measure: () => {
        startedAfterCaller = callerHasIt;
        return Promise.resolve(50);
      },
      end: () => Promise.resolve(),
      ended: () => false,
    });
    await limit.around({ timeoutMs: 1000 }, () => Promise.resolve(ok));
    callerHasIt = true;
    expect(await limit.problem()).toBeNull();
    expect(startedAfterCaller).toBe(true);
  });

  it("a measurement that failed on our side decides nothing", async () => {
    const s = scripted([undefined]);
    await s.limit.around({ timeoutMs: 1000 }, () => Promise.resolve(ok));
    expect(await s.limit.problem()).toBeNull();
  });

  it("past the limit after a command: the environment ends; later calls are the participant's limitExceeded", async () => {
    const s = scripted([500]);
    await s.limit.around({ timeoutMs: 1000 }, () => Promise.resolve(ok));
    expect(await s.limit.problem()).toMatch(/wrote 0\.0 MiB .* past its limit/);
    expect(s.endedWith()).toMatch(/disk limit/);
    const later = await s.limit.around({ timeoutMs: 1000 }, () => Promise.resolve(ok));
    expect(later).toMatchObject({ exitCode: null, limitExceeded: expect.stringMatching(/disk limit/) as unknown });
    expect(later.infraError).toBeUndefined();
    expect(later.output).toMatch(/disk limit/);
  });

  it("measured while a long command runs: the command's outcome carries the broken limit", async () => {
    const s = scripted([500]);
    const r = await s.limit.around(
      { timeoutMs: 10_000, streams: "separate" },
      () => new Promise((res) => setTimeout(() => res(ok), DISK_POLL_MS * 1.6)),
    );
    expect(r.limitExceeded).toMatch(/disk limit/);
    expect(r.output).toBe("done\n");
    expect(r.stderr).toMatch(/disk limit/);
  });

  it("a tree kept from being measured is a broken limit, the participant's", async () => {
    const s = scripted([{ hidden: "du: cannot read directory 'd': Permission denied" }]);
    await s.limit.around({ timeoutMs: 1000 }, () => Promise.resolve(ok));
    expect(await s.limit.problem()).toMatch(/kept part of its disk from being measured .*Permission denied/);
  });
});

describe("du's output as a measurement", () => {
  it("reads the total", () => expect(duMeasure("123456\t/x/tree\n", "")).toBe(123456));
  it("a directory du may not read is hidden disk (chmod 000 on a host that is not root)", () =>
    expect(duMeasure("4096\t/x/tree\n", "du: cannot read directory '/x/tree/d': Permission denied\n")).toEqual({
      hidden: "du: cannot read directory '/x/tree/d': Permission denied",
    }));
  it("a file vanishing during the walk is churn, not hiding", () =>
    expect(duMeasure("4096\t/x/tree\n", "du: cannot access '/x/tree/tmp1': No such file or directory\n")).toBe(4096));
  it("no total decides nothing", () => expect(duMeasure("", "du: fts_read failed\n")).toBeUndefined());
});
