import { describe, expect, test } from "vitest";
import { readdirSync } from "node:fs";
import { schemasDir } from "../../src/util/package-root.js";
import { checkAgainst, getValidator, schemaProblems } from "../../src/util/schema.js";
import { BUNDLE_SCHEMA_FILE, SMI_BUNDLE_SCHEMA_FILE, bundleProblems } from "../../src/bundle/validate.js";

// The two bundle schemas share one $id (the compatibility contract), so each compiles in its own Ajv.
const ownAjv = new Set([BUNDLE_SCHEMA_FILE, SMI_BUNDLE_SCHEMA_FILE]);

const files = readdirSync(schemasDir).filter((f) => f.endsWith(".json"));

describe("schemas/", () => {
  test("holds the project's schemas", () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  // The shared registry compiles with validateSchema: false (start-up cost); this is where
  // every schema is held to the JSON Schema 2020-12 meta-schema instead.
  test.each(files)("%s is a valid JSON Schema 2020-12 document and compiles in strict mode", (file) => {
    expect(schemaProblems(file)).toEqual([]);
    if (ownAjv.has(file)) expect(() => bundleProblems({}, file)).not.toThrow();
    else expect(() => getValidator(file)).not.toThrow();
  });
});

describe("checkAgainst", () => {
  test("names the path and the problem", () => {
    const problems = checkAgainst("assessment_request.schema.json", {
      benchmark: "humaneval",
      concurrency: 0,
      bogus: 1,
    });
    expect(problems.join("\n")).toMatch(/bogus/);
    expect(problems.join("\n")).toMatch(/\/concurrency/);
  });
});

describe("schemaProblems", () => {
  test("reports a schema that breaks the meta-schema, naming it", () => {
    const problems = schemaProblems("broken.json", { type: "no-such-type" });
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join("\n")).toMatch(/^broken\.json\/type/m);
  });
});
