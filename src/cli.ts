#!/usr/bin/env node
/**
 * `a2a-bench <subcommand> ...` — the project's one CLI. Subcommands are loaded
 * lazily so `--help` of one does not pay for the others' imports.
 */
import type { CliCommand, CliIo } from "./cli/types.js";
import { BenchError, UsageError, errorMessage } from "./util/errors.js";
import { didYouMean } from "./util/suggest.js";
import { packageVersion } from "./cli/version.js";

const COMMANDS: Record<string, () => Promise<CliCommand>> = {
  green: async () => (await import("./cli/green.js")).command,
  purple: async () => (await import("./cli/purple.js")).command,
  "validate-bundle": async () => (await import("./cli/validate-bundle.js")).command,
  run: async () => (await import("./cli/run.js")).command,
  smoke: async () => (await import("./cli/smoke.js")).command,
  preflight: async () => (await import("./cli/preflight.js")).command,
  scenario: async () => (await import("./cli/scenario.js")).command,
  swebench: async () => (await import("./cli/swebench.js")).command,
  view: async () => (await import("./cli/view.js")).command,
  export: async () => (await import("./cli/export.js")).command,
  new: async () => (await import("./cli/new.js")).command,
  sandbox: async () => (await import("./cli/sandbox.js")).command,
  merge: async () => (await import("./cli/merge.js")).command,
};

async function topHelp(): Promise<string> {
  const lines = ["Usage: a2a-bench <command> [options]", "", "Commands:"];
  for (const [name, load] of Object.entries(COMMANDS)) {
    const cmd = await load();
    lines.push(`  ${name.padEnd(16)} ${cmd.summary}`);
  }
  lines.push(
    "",
    "Options: --help, --version (also after any command).",
    "Run `a2a-bench <command> --help` for a command's options.",
  );
  return lines.join("\n") + "\n";
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "--help" || sub === "-h" || sub === "help") {
    io.stdout.write(await topHelp());
    return sub === undefined ? 2 : 0;
  }
  if (sub === "--version" || sub === "-V" || sub === "version") {
    io.stdout.write(`a2a-bench ${packageVersion()}\n`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, sub) ? COMMANDS[sub] : undefined;
  if (!load) {
    const known = Object.keys(COMMANDS);
    const what = sub.startsWith("-") ? "option" : "command";
    io.stderr.write(
      `a2a-bench: unknown ${what} "${sub}"${didYouMean(sub, sub.startsWith("-") ? ["--help", "--version"] : known)} (commands: ${known.join(", ")})\n`,
    );
    return 2;
  }
  const cmd = await load();
  // Only before a `--`: after it every word is an operand.
  const flags = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (flags.includes("--help") || flags.includes("-h")) {
    io.stdout.write(cmd.usage.endsWith("\n") ? cmd.usage : cmd.usage + "\n");
    return 0;
  }
  if (flags.includes("--version")) {
    io.stdout.write(`a2a-bench ${packageVersion()}\n`);
    return 0;
  }
  try {
    cmd.processSetup?.();
    return await cmd.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`a2a-bench ${sub}: ${err.message}\n`);
      return 2;
    }
    if (err instanceof BenchError) {
      io.stderr.write(`a2a-bench ${sub}: ${err.message} [${err.code}]\n`);
      return 1;
    }
    io.stderr.write(`a2a-bench ${sub}: ${errorMessage(err)}\n`);
    return 1;
  }
}

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`a2a-bench: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  },
);
