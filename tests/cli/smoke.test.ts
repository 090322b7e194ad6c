/**
 * `a2a-bench smoke`'s pure parser: the card-wait bound is a positive number of
 * seconds, named in the error otherwise, and documented in --help.
 */
import { describe, expect, it } from "vitest";
import { parseSmokeArgs, usage } from "../../src/cli/smoke.js";
import { UsageError } from "../../src/util/errors.js";

describe("smoke --card-timeout", () => {
  it("is passed through in milliseconds, and left to the default when absent", () => {
    expect(parseSmokeArgs(["--card-timeout", "1"]).cardTimeoutMs).toBe(1000);
    expect(parseSmokeArgs(["--card-timeout=0.25"]).cardTimeoutMs).toBe(250);
    expect(parseSmokeArgs([]).cardTimeoutMs).toBeUndefined();
  });

  it.each(["0", "-1", "abc", "", "Infinity", "1s"])("rejects %j naming the option", (value) => {
    expect(() => parseSmokeArgs(["--card-timeout", value])).toThrow(UsageError);
    expect(() => parseSmokeArgs(["--card-timeout", value])).toThrow(
      `--card-timeout must be a positive number of seconds, got "${value}"`,
    );
  });

  it("is documented in --help with its default", () => {
    expect(usage).toMatch(/--card-timeout S\s+bound on waiting for the green agent's card[^]*default 30/);
  });

  it("--log-level is checked and passed on for the agents --start launches", () => {
    expect(parseSmokeArgs(["--log-level", "warn"]).logLevel).toBe("warn");
    expect(parseSmokeArgs([]).logLevel).toBeUndefined();
    expect(() => parseSmokeArgs(["--log-level", "wran"])).toThrow('did you mean "warn"');
  });

  it("keeps --timeout's validation", () => {
    expect(parseSmokeArgs(["--timeout", "5"]).timeoutSeconds).toBe(5);
    expect(() => parseSmokeArgs(["--timeout", "0"])).toThrow('--timeout must be a positive number of seconds, got "0"');
  });
});
