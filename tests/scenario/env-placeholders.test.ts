import { describe, expect, it } from "vitest";
import { fillPlaceholders, UnsetPlaceholderError } from "../../src/scenario/env-placeholders.js";

describe("scenario env placeholders", () => {
  it("fills ${NAME} from the first source that has it (env file before the environment) and keeps other text", () => {
    const env = { OPENAI_API_KEY: "${OPENAI_API_KEY}", URL: "http://${HOST}:9009/", PLAIN: "x", EMPTY: "${EMPTY}" };
    const out = fillPlaceholders("agent", env, [
      { OPENAI_API_KEY: "from-file", EMPTY: "" },
      { OPENAI_API_KEY: "from-env", HOST: "h" },
    ]);
    expect(out).toEqual({ OPENAI_API_KEY: "from-file", URL: "http://h:9009/", PLAIN: "x", EMPTY: "" });
  });

  it("refuses a placeholder nothing sets, naming the agent, the key and the variable", () => {
    expect(() => fillPlaceholders("agent", { K: "${MISSING_SECRET}" }, [{}, {}])).toThrow(UnsetPlaceholderError);
    expect(() => fillPlaceholders("agent", { K: "${MISSING_SECRET}" }, [{}, {}])).toThrow(
      /agent: env K refers to \$\{MISSING_SECRET\}, which is not set/,
    );
  });
});
