import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  END_MARKER,
  START_MARKER,
  renderConfigReference,
  spliceConfigReference,
} from "../../src/docs/config-reference.js";
import { readSchema } from "../../src/util/schema.js";
import { packageRoot } from "../../src/util/package-root.js";

describe("README config reference", () => {
  const schema = readSchema("assessment_request.schema.json");

  test("lists every key of the schema with its flag", () => {
    const block = renderConfigReference(schema);
    for (const key of Object.keys(schema["properties"] as object)) {
      expect(block).toContain(`| \`${key}\` |`);
    }
    expect(block).toContain("`--per-task-timeout-seconds`");
  });

  test("README.md holds exactly what the schema generates (run `npm run docs` after changing the schema)", () => {
    const readme = readFileSync(join(packageRoot, "README.md"), "utf8");
    const start = readme.indexOf(START_MARKER);
    const end = readme.indexOf(END_MARKER);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(readme.slice(start, end + END_MARKER.length)).toBe(renderConfigReference(schema));
  });

  test("splicing refuses a README without markers", () => {
    expect(() => spliceConfigReference("# no markers", "x")).toThrow(/markers/);
  });
});
