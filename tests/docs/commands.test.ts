/**
 * Every command the docs tell a reader to type is one the CLI accepts: each `a2a-bench …` / `node dist/cli.js …`
 * line of a shell block in README.md and docs/ goes through the subcommand's own pure parser (the one `main()`
 * calls), `npm run X` must name a script of package.json, and a script or `node <file>` of this package must
 * exist. A renamed or removed flag, a value a parser now refuses, a renamed npm script: each breaks a test
 * naming the page and line.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, test } from "vitest";
import { parseGreenArgs } from "../../src/cli/green.js";
import { parsePreflightArgs } from "../../src/cli/preflight.js";
import { parsePurpleArgs } from "../../src/cli/purple.js";
import { parseScenarioArgs } from "../../src/cli/scenario.js";
import { parseSmokeArgs } from "../../src/cli/smoke.js";
import { parseViewArgs } from "../../src/view/args.js";
import { parseExportArgs } from "../../src/cli/export.js";
import { parseNewArgs } from "../../src/cli/new.js";
import { parseSwebenchArgs } from "../../src/cli/swebench.js";
import { parseValidateArgs } from "../../src/cli/validate-bundle.js";
import { parseSandboxArgs } from "../../src/cli/sandbox.js";
import { parseMergeArgs } from "../../src/cli/merge.js";
import type { CliCommand } from "../../src/cli/types.js";
import { parseRunArgs, resolveRunArgs } from "../../src/runner/run-args.js";
import { knownBenchmarks, offeredInteractions } from "../../src/benchmarks/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { docFiles, fencedBlocks, shellCommands, shellWords, type ShellCommand } from "../support/markdown.js";

const SHELL_LANGS = new Set(["sh", "bash", "shell", "console"]);

/** A `<placeholder>` the reader replaces (`<run_id>`, `<benchmark>`). */
const isPlaceholder = (word: string): boolean => /^<[^<>]+>$/.test(word);

/**
 * Each subcommand's pure parser, as `main()` reaches it. `run` also resolves its options with the schema
 * (defaults, ranges, enums, the participant rules) as the runner does before it touches anything; with a
 * `<benchmark>` placeholder only the parse can be checked, since what the options mean depends on the benchmark.
 */
const PARSERS: Record<string, (argv: string[]) => void> = {
  green: (argv) => void parseGreenArgs(argv),
  purple: (argv) => void parsePurpleArgs(argv),
  run: (argv) => {
    const parsed = parseRunArgs(argv);
    if (isPlaceholder(parsed.benchmark)) return;
    if (!knownBenchmarks().includes(parsed.benchmark))
      throw new Error(`unknown benchmark "${parsed.benchmark}" (known: ${knownBenchmarks().join(", ")})`);
    // --config-file is not read: its keys are the reader's. The flags alone must resolve.
    resolveRunArgs(offeredInteractions, parsed, {}, packageRoot);
  },
  "validate-bundle": (argv) => void parseValidateArgs(argv),
  scenario: (argv) => void parseScenarioArgs(argv),
  smoke: (argv) => void parseSmokeArgs(argv),
  preflight: (argv) => void parsePreflightArgs(argv),
  swebench: (argv) => void parseSwebenchArgs(argv),
  view: (argv) => void parseViewArgs(argv),
  export: (argv) => void parseExportArgs(argv),
  new: (argv) => void parseNewArgs(argv),
  sandbox: (argv) => void parseSandboxArgs(argv),
  merge: (argv) => void parseMergeArgs(argv),
};

const packageJson = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
};

/** The CLI's own arguments of a documented command, or undefined when the command is not the CLI. */
function cliArgs(argv: string[]): string[] | undefined {
  if (argv[0] === "a2a-bench") return argv.slice(1);
  if (argv[0] === "node" && argv[1] === "dist/cli.js") return argv.slice(2);
  return undefined;
}

/** Why a documented command would not run as written, or undefined when it would. */
function problem(cmd: ShellCommand): string | undefined {
  const { argv } = cmd;
  const args = cliArgs(argv);
  if (args !== undefined) {
    const [sub, ...rest] = args;
    if (sub === undefined) return "no subcommand";
    if (sub === "--help" || sub === "--version") return undefined;
    const parse = PARSERS[sub];
    if (parse === undefined) return `unknown subcommand "${sub}"`;
    if (rest.includes("--help") || rest.includes("--version")) return undefined;
    try {
      parse(rest);
      return undefined;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }
  if (argv[0] === "npm") {
    const [, verb, script] = argv;
    if (verb === "run") {
      if (script === undefined) return "npm run without a script";
      return Object.hasOwn(packageJson.scripts, script) ? undefined : `package.json has no script "${script}"`;
    }
    if (verb === "start" || verb === "test")
      return Object.hasOwn(packageJson.scripts, verb) ? undefined : `package.json has no script "${verb}"`;
    return undefined;
  }
  // A file of this package run directly, or by node: it must exist.
  const file = argv[0] === "node" ? argv[1] : argv[0];
  if (file !== undefined && /^(\.ci|scripts|bench|leaderboard|dist)\//.test(file) && !file.includes("$")) {
    return existsSync(join(packageRoot, file)) ? undefined : `${file} does not exist`;
  }
  return undefined;
}

interface Found extends ShellCommand {
  file: string;
}

/** Every command of every shell block, and every `cmd = "…"` of a TOML block (a scenario's agent command). */
function documentedCommands(): Found[] {
  const out: Found[] = [];
  for (const file of docFiles(packageRoot)) {
    for (const block of fencedBlocks(readFileSync(join(packageRoot, file), "utf8"))) {
      if (SHELL_LANGS.has(block.lang)) {
        for (const c of shellCommands(block)) out.push({ ...c, file });
      } else if (block.lang === "toml") {
        block.body.split("\n").forEach((ln, i) => {
          const m = /^\s*cmd\s*=\s*"(.*)"\s*(?:#.*)?$/.exec(ln);
          if (m) out.push({ argv: shellWords(m[1]!), line: block.line + 1 + i, source: ln.trim(), file });
        });
      }
    }
  }
  return out;
}

describe("commands in the docs", () => {
  const found = documentedCommands();
  const cli = found.filter((c) => cliArgs(c.argv) !== undefined);

  test("the docs show CLI commands for every subcommand, so each parser is exercised", () => {
    const used = new Set(cli.map((c) => cliArgs(c.argv)![0]));
    for (const sub of Object.keys(PARSERS)) expect(used, `no documented "${sub}" command`).toContain(sub);
  });

  test("the table of parsers covers every subcommand the CLI has", async () => {
    const names: string[] = [];
    for (const f of readdirSync(join(packageRoot, "src", "cli"))) {
      if (!f.endsWith(".ts")) continue;
      const mod = (await import(pathToFileURL(join(packageRoot, "src", "cli", f)).href)) as { command?: CliCommand };
      if (mod.command) names.push(mod.command.name);
    }
    expect(names.sort()).toEqual(Object.keys(PARSERS).sort());
  });

  test("every documented command parses with the CLI's own parsers, or names an npm script or file that exists", () => {
    expect(cli.length).toBeGreaterThan(30);
    const bad = found.flatMap((c) => {
      const p = problem(c);
      return p === undefined ? [] : [`${c.file}:${c.line}: ${c.source}\n    → ${p}`];
    });
    expect(bad, bad.join("\n")).toEqual([]);
  });

  test("the README's commands table has one row per subcommand, each linking to its docs page", () => {
    const readme = readFileSync(join(packageRoot, "README.md"), "utf8");
    const start = readme.indexOf("\n## Commands\n");
    expect(start, "README.md has a Commands section").toBeGreaterThanOrEqual(0);
    const end = readme.indexOf("\n## ", start + 1);
    const rows = readme
      .slice(start, end < 0 ? undefined : end)
      .split("\n")
      .filter((l) => /^\| `[a-z]/.test(l) && !l.startsWith("| `npm ")); // the npm scripts have their own table
    const named = rows.map((r) => /^\| `([a-z-]+)/.exec(r)![1]!);
    expect(named.sort()).toEqual(Object.keys(PARSERS).sort());
    for (const r of rows) expect(r, r).toMatch(/\]\(docs\/[^)]+\.md(#[^)]*)?\)/);
  });

  test("a documented synopsis (`Usage: a2a-bench …`) is the CLI's own", async () => {
    const synopsis = new Map<string, string>();
    for (const f of readdirSync(join(packageRoot, "src", "cli"))) {
      if (!f.endsWith(".ts")) continue;
      const mod = (await import(pathToFileURL(join(packageRoot, "src", "cli", f)).href)) as { command?: CliCommand };
      // The usage text's first paragraph, wrapped lines joined.
      if (mod.command) synopsis.set(mod.command.name, mod.command.usage.split("\n\n")[0]!.replace(/\s+/g, " ").trim());
    }
    let checked = 0;
    for (const file of docFiles(packageRoot)) {
      for (const m of readFileSync(join(packageRoot, file), "utf8").matchAll(
        /^Usage: `(a2a-bench ([a-z-]+)[^`]*)`/gm,
      )) {
        checked += 1;
        expect(`Usage: ${m[1]!}`, `${file}: ${m[2]!}`).toBe(synopsis.get(m[2]!));
      }
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });

  test("the README shows the test command", () => {
    const readme = found.filter((c) => c.file === "README.md").map((c) => c.argv.join(" "));
    expect(readme).toContain("npm test");
  });

  test("every fenced block says its language, so no command hides in an unlabelled one", () => {
    const bad: string[] = [];
    for (const file of docFiles(packageRoot)) {
      for (const b of fencedBlocks(readFileSync(join(packageRoot, file), "utf8"))) {
        if (b.lang === "") bad.push(`${file}:${b.line}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("the checker catches a renamed flag, an unknown subcommand, a bad value and a missing npm script", () => {
    const check = (source: string): string | undefined => {
      const [cmd] = shellCommands({ lang: "sh", body: source, line: 0 });
      return problem(cmd!);
    };
    expect(check("node dist/cli.js run humaneval --smaples 3")).toMatch(/--smaples/);
    expect(check("a2a-bench grade --log x")).toMatch(/unknown subcommand "grade"/);
    expect(check("node dist/cli.js run humaneval --input-mode shout")).toMatch(/input-mode/);
    expect(check("node dist/cli.js run nobench")).toMatch(/unknown benchmark "nobench"/);
    expect(check("node dist/cli.js purple --port 70000")).toMatch(/--port/);
    expect(check("npm run no-such-script")).toMatch(/no script "no-such-script"/);
    expect(check("node bench/no-such-file.mjs")).toMatch(/does not exist/);
    expect(check("GREEN_AUTH_TOKEN=t node dist/cli.js green --host 0.0.0.0 \\\n  --port 9009")).toBeUndefined();
  });
});
