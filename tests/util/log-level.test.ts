import { describe, expect, it } from "vitest";
import { LOG_LEVELS, parseLogLevel } from "../../src/util/log-level.js";
import { parseServerArgs } from "../../src/cli/server-args.js";
import { parseGreenArgs } from "../../src/cli/green.js";
import { parseRunArgs } from "../../src/runner/run-args.js";
import { UsageError } from "../../src/util/errors.js";

describe("--log-level", () => {
  it("takes pino's levels; absent is undefined (env LOG_LEVEL, else info)", () => {
    for (const l of LOG_LEVELS) expect(parseLogLevel(l)).toBe(l);
    expect(parseLogLevel(undefined)).toBeUndefined();
  });

  it("anything else is a usage error with a did-you-mean", () => {
    expect(() => parseLogLevel("debg")).toThrow(UsageError);
    expect(() => parseLogLevel("debg")).toThrow(
      '--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "debg" (did you mean "debug"?)',
    );
  });

  it("is parsed (purely) by every command that logs: green, purple (server args) and run", () => {
    expect(parseServerArgs(["--log-level", "warn"], 1).server.logLevel).toBe("warn");
    expect(parseServerArgs([], 1).server.logLevel).toBeUndefined();
    expect(parseGreenArgs(["--log-level", "debug"]).logLevel).toBe("debug");
    expect(parseRunArgs(["humaneval", "--log-level", "error"]).logLevel).toBe("error");
    expect(() => parseRunArgs(["humaneval", "--log-level", "loud"])).toThrow(/--log-level must be one of/);
  });
});
