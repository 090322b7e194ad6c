/** `a2a-bench new benchmark|backend NAME [--root DIR]`: scaffold a benchmark or a sandbox backend. */
import { resolve } from "node:path";
import type { CliCommand } from "./types.js";
import { UsageError } from "../util/errors.js";
import { scaffold, type ScaffoldKind } from "../scaffold/scaffold.js";
import { scaffoldNames } from "../scaffold/names.js";

const USAGE = `Usage: a2a-bench new benchmark NAME [--root DIR]
       a2a-bench new backend NAME [--root DIR]

Write a new benchmark (src/benchmarks/NAME/: descriptor.ts, definition.ts, row-schema.ts, and
tests/benchmarks/NAME/definition.test.ts) or sandbox backend (src/sandbox/NAME/: descriptor.ts,
NAME-sandbox.ts, and its test), and add its one line to the registry (src/benchmarks/index.ts or
src/sandbox/registry.ts). NAME is lower-case kebab-case. Then \`npm run build\` writes it into the schemas
and the config reference (docs/extending.md).

Options:
  --root DIR   the a2a-bench checkout to write into (default: the current directory)

Exit: 0 written, 2 usage error (a bad name, a name or folder already taken).`;

export interface NewArgs {
  kind: ScaffoldKind;
  name: string;
  root: string;
}

/** Parse `new`'s arguments (pure: no file is read). */
export function parseNewArgs(argv: readonly string[], cwd = "."): NewArgs {
  const positional: string[] = [];
  let root = cwd;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--root") {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new UsageError("--root needs a directory");
      root = v;
    } else if (a.startsWith("-")) throw new UsageError(`unknown option ${a}`);
    else positional.push(a);
  }
  const [kind, name, ...rest] = positional;
  if (kind !== "benchmark" && kind !== "backend")
    throw new UsageError(
      `new: say what to write: \`new benchmark NAME\` or \`new backend NAME\`, got ${JSON.stringify(kind ?? "")}`,
    );
  if (name === undefined) throw new UsageError(`new ${kind}: NAME is missing`);
  if (rest.length > 0) throw new UsageError(`new ${kind}: one NAME only, got also ${rest.join(" ")}`);
  scaffoldNames(name, kind);
  return { kind, name, root: resolve(root) };
}

export const command: CliCommand = {
  name: "new",
  summary: "scaffold a benchmark or a sandbox backend: its folder, a passing test and its registry line",
  usage: USAGE,
  async run(argv, io) {
    const args = parseNewArgs(argv, process.cwd());
    const done = await scaffold(args.kind, args.name, args.root);
    for (const f of done.files) io.stdout.write(`wrote ${f}\n`);
    io.stdout.write(`registered in ${done.registry}:\n  ${done.registryLine}\n`);
    io.stdout.write("next: npm run build (schemas, config reference), then its test\n");
    return 0;
  },
};
