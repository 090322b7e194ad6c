/**
 * `a2a-bench new benchmark|backend NAME`: write the folder from the templates and add its one registry
 * line (the descriptor's import and its entry in the built-in list). Refuses a bad name, a name taken and
 * a folder or file already there, before writing anything.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { UsageError } from "../util/errors.js";
import { benchmarkFiles } from "./benchmark-template.js";
import { backendFiles } from "./backend-template.js";
import { scaffoldNames, type ScaffoldNames } from "./names.js";

export type ScaffoldKind = "benchmark" | "backend";

/** Where each kind lives and is registered. */
const KINDS = {
  benchmark: { folder: "src/benchmarks", registry: "src/benchmarks/index.ts", list: "BUILT_IN_BENCHMARKS" },
  backend: { folder: "src/sandbox", registry: "src/sandbox/registry.ts", list: "BUILT_IN_BACKENDS" },
} as const;

export interface ScaffoldResult {
  /** Files written, relative to the root. */
  files: string[];
  /** The registry file edited and the line that now holds the new entry. */
  registry: string;
  registryLine: string;
}

/** The registry text with `n`'s import and list entry added; a UsageError when its list is not found. */
export function withEntry(text: string, kind: ScaffoldKind, n: ScaffoldNames): { text: string; line: string } {
  const list = new RegExp(`^const ${KINDS[kind].list} = \\[(.*)\\] as const;$`, "m");
  const found = list.exec(text);
  const imports = [...text.matchAll(/^import \{ \w+ \} from "\.\/[\w-]+\/descriptor\.js";$/gm)];
  const lastImport = imports.at(-1);
  if (!found || !lastImport)
    throw new UsageError(`${KINDS[kind].registry}: no one-line ${KINDS[kind].list} list to add "${n.name}" to`);
  const line = `const ${KINDS[kind].list} = [${found[1]}, ${n.ident}] as const;`;
  const importLine = `import { ${n.ident} } from "./${n.name}/descriptor.js";`;
  const at = lastImport.index + lastImport[0].length;
  const withImport = `${text.slice(0, at)}\n${importLine}${text.slice(at)}`;
  return { text: withImport.replace(list, line), line };
}

/**
 * `text` as the checkout's Prettier writes it (a name's length moves line breaks); as written when
 * Prettier is not installed (a checkout has it: a devDependency).
 */
async function formatted(text: string, path: string): Promise<string> {
  let prettier: typeof import("prettier");
  try {
    prettier = await import("prettier");
  } catch {
    return text;
  }
  return prettier.format(text, { ...(await prettier.resolveConfig(path)), filepath: path });
}

/** The files of a `kind` called `name`, by path relative to `root`, as the scaffold writes them. */
export async function scaffoldFiles(kind: ScaffoldKind, name: string, root: string): Promise<Record<string, string>> {
  const n = scaffoldNames(name, kind);
  const files = kind === "benchmark" ? benchmarkFiles(n) : backendFiles(n);
  const out: Record<string, string> = {};
  for (const [path, text] of Object.entries(files)) out[path] = await formatted(text, join(root, path));
  return out;
}

/** Scaffold a `kind` called `name` in the checkout at `root`. */
export async function scaffold(kind: ScaffoldKind, name: string, root: string): Promise<ScaffoldResult> {
  const n = scaffoldNames(name, kind);
  const { folder, registry } = KINDS[kind];
  const registryPath = join(root, registry);
  if (!existsSync(registryPath))
    throw new UsageError(`${root} is not an a2a-bench checkout (no ${registry}); run this at its root or pass --root`);
  const registryText = await readFile(registryPath, "utf8");
  if (new RegExp(`name: "${name}"|/${name}/descriptor\\.js"`).test(registryText))
    throw new UsageError(`a ${kind} called "${name}" is already registered in ${registry}`);
  const files = await scaffoldFiles(kind, name, root);
  const taken = [join(folder, name), ...Object.keys(files)].filter((p) => existsSync(join(root, p)));
  if (taken.length > 0) throw new UsageError(`${taken[0]!} already exists: choose another name or remove it`);
  const edited = withEntry(registryText, kind, n);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text, { flag: "wx" });
  }
  await writeFile(registryPath, edited.text);
  return { files: Object.keys(files), registry, registryLine: edited.line };
}
