import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import {
  CONFIG_REFERENCE_PAGE,
  END_MARKER,
  START_MARKER,
  renderConfigReference,
  spliceConfigReference,
  updateConfigReference,
} from "../../src/docs/config-reference.js";
import { readSchema } from "../../src/util/schema.js";
import { packageRoot } from "../../src/util/package-root.js";

describe("the config reference page (docs/config-reference.md)", () => {
  const schema = readSchema("assessment_request.schema.json");
  const scratch = mkdtempSync(join(tmpdir(), "a2a-bench-docs-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  test("lists every key of the schema with its flag", () => {
    const block = renderConfigReference(schema);
    for (const key of Object.keys(schema["properties"] as object)) {
      expect(block).toContain(`| \`${key}\` |`);
    }
    expect(block).toContain("`--per-task-timeout-seconds`");
  });

  test("shows each benchmark's defaults: in the key's row and in a table with one row per benchmark", () => {
    const block = renderConfigReference(schema);
    expect(block).toMatch(/\| `per_task_timeout_seconds` \| [^|]+ \| number \| swebench `1800`, else `3` \|/);
    const rows = block.split("\n").filter((l) => /^\| `[a-z-]+` \| `\d+` \|$/.test(l));
    expect(rows).toEqual([
      "| `humaneval` | `3` |",
      "| `swebench` | `1800` |",
      "| `redcode` | `3` |",
      "| `sparc` | `3` |",
      "| `smi-inhabit` | `3` |",
      "| `terminal` | `3` |",
    ]);
  });

  test(`${CONFIG_REFERENCE_PAGE} holds exactly what the schema generates (run \`npm run docs\` after changing the schema)`, () => {
    const page = readFileSync(join(packageRoot, CONFIG_REFERENCE_PAGE), "utf8");
    const start = page.indexOf(START_MARKER);
    const end = page.indexOf(END_MARKER);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(page.slice(start, end + END_MARKER.length)).toBe(renderConfigReference(schema));
  });

  test("the README no longer carries a copy of the generated block", () => {
    const readme = readFileSync(join(packageRoot, "README.md"), "utf8");
    expect(readme).not.toContain(START_MARKER);
    expect(readme).toContain(`(${CONFIG_REFERENCE_PAGE})`);
  });

  test("splicing refuses a page without markers, naming it", () => {
    expect(() => spliceConfigReference("# no markers", "x")).toThrow(/docs\/config-reference\.md lacks the .*markers/);
  });

  test("updating rewrites a stale block, keeps the hand-written prose, and then reports it current", async () => {
    const path = join(scratch, "config-reference.md");
    writeFileSync(path, `# Title\n\nprose before\n\n${START_MARKER}\nstale\n${END_MARKER}\n\nprose after\n`);
    expect(await updateConfigReference(path)).toBe(true);
    const after = readFileSync(path, "utf8");
    expect(after).toBe(`# Title\n\nprose before\n\n${renderConfigReference(schema)}\n\nprose after\n`);
    expect(await updateConfigReference(path)).toBe(false);
  });
});
