import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";

/** The page and section that list the package entry's exports. */
const PAGE = "docs/architecture.md";
const HEADING = "## Library (the package entry)";

/** The `export` column of the page's table, split into runtime values and types by its `kind` column. */
function pageExports(): { values: string[]; types: string[] } {
  const page = readFileSync(join(packageRoot, PAGE), "utf8");
  const start = page.indexOf(HEADING);
  expect(start, `${PAGE} has a "${HEADING}" section`).toBeGreaterThanOrEqual(0);
  const end = page.indexOf("\n## ", start + HEADING.length);
  const section = page.slice(start, end === -1 ? undefined : end);
  const values: string[] = [];
  const types: string[] = [];
  for (const [, name, kind] of section.matchAll(/^\| `(\w+)` \| (\w+) \|/gm)) {
    (kind === "type" ? types : values).push(name!);
  }
  return { values, types };
}

/** The names `src/index.ts` exports, read from its syntax: values and type-only exports apart. */
function entryExports(): { values: string[]; types: string[]; starExports: number } {
  const path = join(packageRoot, "src", "index.ts");
  const file = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.ES2022, false);
  const values: string[] = [];
  const types: string[] = [];
  let starExports = 0;
  for (const node of file.statements) {
    if (!ts.isExportDeclaration(node)) continue;
    const clause = node.exportClause;
    if (!clause || !ts.isNamedExports(clause)) {
      starExports += 1;
      continue;
    }
    for (const el of clause.elements) (node.isTypeOnly || el.isTypeOnly ? types : values).push(el.name.text);
  }
  return { values, types, starExports };
}

const sorted = (names: string[]): string[] => [...names].sort();

describe("the package entry and the library table of docs/architecture.md", () => {
  test("src/index.ts names every export (no `export *`, whose names the table could not follow)", () => {
    expect(entryExports().starExports).toBe(0);
  });

  test("the page lists exactly the values and types src/index.ts exports", () => {
    const readme = pageExports();
    const entry = entryExports();
    expect(sorted(readme.values)).toEqual(sorted(entry.values));
    expect(sorted(readme.types)).toEqual(sorted(entry.types));
  });

  test("the module really provides each listed value, and nothing else at runtime", async () => {
    const mod = (await import("../../src/index.js")) as Record<string, unknown>;
    expect(sorted(Object.keys(mod))).toEqual(sorted(pageExports().values));
    for (const name of pageExports().values) expect(typeof mod[name]).toBe("function");
  });
});
