/**
 * The docs hang together: every relative link in README.md and docs/**\/*.md names a file of this repository,
 * and a `#fragment` names a heading of that page (GitHub's anchors). The README stays a front door.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, test } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";
import { docFiles, headingAnchors, relativeLinks, slug } from "../support/markdown.js";

/** The README's ceiling, in lines: what does not fit belongs on a topic page. */
const README_MAX_LINES = 300;

/**
 * Pages other branches are writing right now (the library, adding a benchmark, adding a sandbox backend).
 * A link to one of them may point at nothing yet; once the page exists it is checked like any other, anchors
 * included. Remove an entry when its page has landed.
 */
const PENDING_PAGES = new Set<string>([]);

const anchorsOf = new Map<string, Set<string>>();
function anchors(file: string): Set<string> {
  let a = anchorsOf.get(file);
  if (a === undefined) {
    a = headingAnchors(readFileSync(join(packageRoot, file), "utf8"));
    anchorsOf.set(file, a);
  }
  return a;
}

/** Why a link of `from` does not resolve, or undefined when it does. */
function linkProblem(from: string, target: string): string | undefined {
  const hash = target.indexOf("#");
  const pathPart = hash < 0 ? target : target.slice(0, hash);
  const fragment = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const file = pathPart === "" ? from : normalize(join(dirname(from), decodeURIComponent(pathPart)));
  if (file.startsWith("..")) return `${target} leaves the repository`;
  if (!existsSync(join(packageRoot, file))) {
    if (PENDING_PAGES.has(file) && fragment === undefined) return undefined;
    return `${target}: no file ${file}`;
  }
  if (fragment === undefined) return undefined;
  if (!file.endsWith(".md") || statSync(join(packageRoot, file)).isDirectory())
    return `${target}: a fragment on a file that is not a Markdown page`;
  return anchors(file).has(fragment) ? undefined : `${target}: ${file} has no heading with anchor #${fragment}`;
}

describe("links in README.md and docs/", () => {
  const files = docFiles(packageRoot);

  test("the docs are the README and the topic pages", () => {
    expect(files).toContain("README.md");
    expect(files).toContain("docs/README.md");
    expect(files.length).toBeGreaterThan(10);
  });

  test("every relative link names an existing file, and every #fragment a heading of that page", () => {
    const bad: string[] = [];
    let checked = 0;
    for (const from of files) {
      for (const link of relativeLinks(readFileSync(join(packageRoot, from), "utf8"))) {
        checked += 1;
        const p = linkProblem(from, link.target);
        if (p !== undefined) bad.push(`${from}:${link.line}: ${p}`);
      }
    }
    expect(checked).toBeGreaterThan(50);
    expect(bad, bad.join("\n")).toEqual([]);
  });

  test("every topic page is reachable from the docs index", () => {
    const index = relativeLinks(readFileSync(join(packageRoot, "docs", "README.md"), "utf8")).map((l) =>
      normalize(join("docs", l.target.split("#")[0]!)),
    );
    const pages = files.filter((f) => f.startsWith("docs/") && f !== "docs/README.md");
    expect(pages.filter((p) => !index.includes(p))).toEqual([]);
  });

  test(`README.md is at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(packageRoot, "README.md"), "utf8").split("\n").length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  test("anchors follow GitHub's slugs", () => {
    expect(slug("Isolation levels (`sandbox.isolation`, with `sandbox.warnings`)")).toBe(
      "isolation-levels-sandboxisolation-with-sandboxwarnings",
    );
    expect(slug("Benchmark runner (`a2a-bench run`) and HumanEval")).toBe(
      "benchmark-runner-a2a-bench-run-and-humaneval",
    );
    expect(slug("evaluation_bundle")).toBe("evaluation_bundle");
    expect(slug("Troubleshooting each ✗")).toBe("troubleshooting-each-");
    expect([...headingAnchors("# A\n\n## A\n\n```sh\n# not a heading\n```\n")]).toEqual(["a", "a-1"]);
  });

  test("the checker catches a missing page, a missing anchor and an anchor on a pending page", () => {
    expect(linkProblem("README.md", "docs/no-such-page.md")).toMatch(/no file docs\/no-such-page\.md/);
    expect(linkProblem("README.md", "docs/agents.md#no-such-heading")).toMatch(/no heading with anchor/);
    expect(linkProblem("docs/agents.md", "#no-such-heading")).toMatch(/docs\/agents\.md has no heading/);
    expect(linkProblem("docs/benchmarks/sparc.md", "../agents.md#library")).toBeUndefined();
    expect(linkProblem("README.md", "../outside.md")).toMatch(/leaves the repository/);
    const pending = [...PENDING_PAGES].find((p) => !existsSync(join(packageRoot, p)));
    if (pending !== undefined) expect(linkProblem("README.md", `${pending}#x`)).toMatch(/no file/);
  });
});
