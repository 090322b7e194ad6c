/**
 * The green's GREEN_* settings: a name it does not read is warned of, with the setting it most likely meant.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { GREEN_SETTING_NAMES, unknownSettingWarnings } from "../../src/green/settings.js";

describe("unknownSettingWarnings", () => {
  it("names a misspelt setting and the one it most likely meant", () => {
    expect(unknownSettingWarnings({ GREEN_AUTH_TOKN: "x", GREEN_MAX_CONCURRENT_TASKS: "2" })).toEqual([
      "GREEN_AUTH_TOKN is not a green setting and is ignored (did you mean GREEN_AUTH_TOKEN?)",
    ]);
  });

  it("names an unknown setting without a guess when none is close, and ignores other variables", () => {
    expect(unknownSettingWarnings({ GREEN_COLOUR: "teal", PATH: "/usr/bin", GREENHOUSE: "1" })).toEqual([
      "GREEN_COLOUR is not a green setting and is ignored",
    ]);
  });

  it("is silent for every setting the green reads, and each of them is documented", () => {
    const env = Object.fromEntries(GREEN_SETTING_NAMES.map((n) => [n, "1"]));
    expect(unknownSettingWarnings(env)).toEqual([]);
    const agents = readFileSync(resolve(import.meta.dirname, "../../docs/agents.md"), "utf8");
    for (const name of GREEN_SETTING_NAMES) expect(agents).toContain(name);
  });
});
