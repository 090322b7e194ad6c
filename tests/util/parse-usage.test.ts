import { describe, expect, test } from "vitest";
import { joinNegativeValues, parseUsage } from "../../src/util/parse-usage.js";
import { closestName, didYouMean } from "../../src/util/suggest.js";
import { UsageError } from "../../src/util/errors.js";

const options = { samples: { type: "string" }, seed: { type: "string" }, start: { type: "boolean" } } as const;

describe("parseUsage", () => {
  test("a negative number after a value option is its value, not an ambiguous flag", () => {
    const parsed = parseUsage({ args: ["--seed", "-1", "--samples", "-2.5e3"], options });
    expect(parsed.values).toEqual({ seed: "-1", samples: "-2.5e3" });
  });

  test("only value options take a negative number; after `--` nothing is rewritten", () => {
    expect(joinNegativeValues(["--start", "-1"], options)).toEqual(["--start", "-1"]);
    expect(joinNegativeValues(["--seed", "-x"], options)).toEqual(["--seed", "-x"]);
    expect(joinNegativeValues(["--", "--seed", "-1"], options)).toEqual(["--", "--seed", "-1"]);
    expect(joinNegativeValues(["--seed=-1"], options)).toEqual(["--seed=-1"]);
  });

  test("an unknown flag is a usage error suggesting the closest known one", () => {
    expect(() => parseUsage({ args: ["--smaples", "3"], options })).toThrow(UsageError);
    expect(() => parseUsage({ args: ["--smaples", "3"], options })).toThrow(
      "unknown option --smaples (did you mean --samples?); see --help",
    );
    expect(() => parseUsage({ args: ["--verison"], options })).toThrow("(did you mean --version?)");
  });

  test("an unknown flag far from every known one gets no suggestion", () => {
    expect(() => parseUsage({ args: ["--completely-different"], options })).toThrow(
      /^unknown option --completely-different; see --help$/,
    );
  });
});

describe("closestName", () => {
  test("suggests within a typo's distance only", () => {
    expect(closestName("rn", ["run", "green", "smoke"])).toBe("run");
    expect(closestName("smoek", ["run", "green", "smoke"])).toBe("smoke");
    expect(closestName("deploy", ["run", "green", "smoke"])).toBeUndefined();
    expect(didYouMean("valdate-bundle", ["validate-bundle", "run"])).toBe(' (did you mean "validate-bundle"?)');
    expect(didYouMean("zzz", ["run"])).toBe("");
  });
});
