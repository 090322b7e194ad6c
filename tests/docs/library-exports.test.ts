import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";

const PAGE = join(packageRoot, "docs", "library.md");
const HEADING = "## Exports";

/** The `export` column of docs/library.md's table, split into runtime values and types by its `kind` column. */
function pageExports(): { values: string[]; types: string[] } {
  const page = readFileSync(PAGE, "utf8");
  const start = page.indexOf(HEADING);
  expect(start, `docs/library.md has a "${HEADING}" section`).toBeGreaterThanOrEqual(0);
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

describe("the package entry and docs/library.md's export table", () => {
  test("src/index.ts names every export (no `export *`, whose names the table could not follow)", () => {
    expect(entryExports().starExports).toBe(0);
  });

  test("the page lists exactly the values and types src/index.ts exports", () => {
    const page = pageExports();
    const entry = entryExports();
    expect(sorted(page.values)).toEqual(sorted(entry.values));
    expect(sorted(page.types)).toEqual(sorted(entry.types));
  });

  test("the module really provides each listed value, and nothing else at runtime", async () => {
    const mod = (await import("../../src/index.js")) as Record<string, unknown>;
    expect(sorted(Object.keys(mod))).toEqual(sorted(pageExports().values));
    for (const name of pageExports().values) expect(typeof mod[name]).toBe("function");
  });
});

/** The page's ```ts samples, each as one module importing "a2a-bench". */
function samples(): string[] {
  return [...readFileSync(PAGE, "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

describe("docs/library.md's code samples", () => {
  test('type-check against src/index.ts (imported as "a2a-bench") under the project\'s strict options', () => {
    const found = samples();
    expect(found.length).toBeGreaterThanOrEqual(3);
    const config = ts.getParsedCommandLineOfConfigFile(
      join(packageRoot, "tsconfig.json"),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
        },
      },
    );
    if (!config) throw new Error("tsconfig.json unreadable");
    // Each sample is a virtual module beside the page; "a2a-bench" resolves to the package entry's source.
    const files = new Map(found.map((text, i) => [join(packageRoot, "docs", `library-sample-${i}.ts`), text]));
    const options: ts.CompilerOptions = {
      ...config.options,
      noEmit: true,
      declaration: false,
      sourceMap: false,
      baseUrl: packageRoot,
      paths: { "a2a-bench": ["src/index.ts"] },
    };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, lang, ...rest) =>
      files.has(name) ? ts.createSourceFile(name, files.get(name)!, lang) : getSourceFile(name, lang, ...rest);
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => files.has(name) || fileExists(name);
    const program = ts.createProgram([...files.keys()], options, host);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file === undefined || files.has(d.file.fileName))
      .map((d) => `${d.file?.fileName ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(problems).toEqual([]);
  }, 120_000);
});
