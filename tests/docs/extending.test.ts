/**
 * docs/extending.md, tested: its code blocks are what `a2a-bench new benchmark toy-bench` and
 * `new backend toy-box` write (the templates, formatted as the scaffold writes them), and its registry
 * lines are the scaffold's edit of the registries as they are. The trial itself (the scaffold in a copy of
 * the checkout, the gate, the engine, preflight) is tests/scaffold/scaffold.test.ts.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { scaffoldFiles, withEntry } from "../../src/scaffold/scaffold.js";
import { scaffoldNames } from "../../src/scaffold/names.js";
import { packageRoot } from "../../src/util/package-root.js";

const page = readFileSync(join(packageRoot, "docs", "extending.md"), "utf8");
const examples = new Map(
  [...page.matchAll(/<!-- example: (\w+ [\w.-]+) -->\n```\w+\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!]),
);

/** The registry block the page shows: the import, then the list with its first entry and the new one. */
function registryBlock(kind: "benchmark" | "backend", name: string): string {
  const file = kind === "benchmark" ? "src/benchmarks/index.ts" : "src/sandbox/registry.ts";
  const n = scaffoldNames(name, kind);
  const { text, line } = withEntry(readFileSync(join(packageRoot, file), "utf8"), kind, n);
  const importLine = text.split("\n").find((l) => l.includes(`{ ${n.ident} }`))!;
  const first = /\[(\w+),/.exec(line)![1]!;
  return `${importLine}\n\n${line.replace(/\[.*\]/, `[${first}, …, ${n.ident}]`)}\n`;
}

describe("docs/extending.md", () => {
  it("shows the two commands", () => {
    expect(page).toContain("a2a-bench new benchmark toy-bench\n");
    expect(page).toContain("a2a-bench new backend toy-box\n");
  });

  it("its code blocks are what the scaffold writes", async () => {
    const benchmark = await scaffoldFiles("benchmark", "toy-bench", packageRoot);
    const backend = await scaffoldFiles("backend", "toy-box", packageRoot);
    const expected: Record<string, string> = {
      "benchmark descriptor.ts": benchmark["src/benchmarks/toy-bench/descriptor.ts"]!,
      "benchmark definition.ts": benchmark["src/benchmarks/toy-bench/definition.ts"]!,
      "benchmark row-schema.ts": benchmark["src/benchmarks/toy-bench/row-schema.ts"]!,
      "benchmark registry": registryBlock("benchmark", "toy-bench"),
      "backend descriptor.ts": backend["src/sandbox/toy-box/descriptor.ts"]!,
      "backend registry": registryBlock("backend", "toy-box"),
    };
    expect([...examples.keys()]).toEqual(Object.keys(expected));
    for (const [name, text] of Object.entries(expected)) expect(examples.get(name), name).toBe(text);
  });
});
