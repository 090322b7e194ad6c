import { describe, expect, test } from "vitest";
import { canceledOutcome, describeOutcome, succeeded, type ProcessOutcome } from "../../src/process/index.js";

const base: ProcessOutcome = { ...canceledOutcome(), terminationReason: null, isCanceled: false, exitCode: 0 };

/** A full record with `patch` applied. */
const rec = (patch: Partial<ProcessOutcome>): ProcessOutcome => ({ ...base, ...patch });

describe("the outcome record", () => {
  test("succeeded only for a started child that exited 0 on its own", () => {
    expect(succeeded(base)).toBe(true);
    expect(succeeded({ ...base, exitCode: 1 })).toBe(false);
    expect(succeeded(rec({ exitCode: null, signal: "SIGKILL" }))).toBe(false);
    expect(succeeded({ ...base, spawnError: "spawn x ENOENT", exitCode: null })).toBe(false);
    // Exit 0 after we terminated it (a child that traps SIGTERM and exits cleanly) is not a success.
    expect(succeeded(rec({ terminationReason: "timeout", timedOut: true }))).toBe(false);
  });

  test("describeOutcome says how it ended and the first reason we gave", () => {
    expect(describeOutcome({ ...base, exitCode: 3 })).toBe("exit code 3");
    expect(describeOutcome({ ...base, spawnError: "spawn x ENOENT" })).toBe("could not start: spawn x ENOENT");
    expect(
      describeOutcome({
        ...base,
        exitCode: null,
        signal: "SIGKILL",
        terminationReason: "timeout",
        isForcefullyTerminated: true,
      }),
    ).toBe("killed by SIGKILL after timeout (forced)");
  });

  test("a child canceled before it started has the same shape, with nothing in it", () => {
    const o = canceledOutcome();
    expect(Object.keys(o).sort()).toEqual(Object.keys(base).sort());
    expect(o).toMatchObject({ isCanceled: true, terminationReason: "cancel", durationMs: 0, stdoutBytes: 0 });
  });
});
