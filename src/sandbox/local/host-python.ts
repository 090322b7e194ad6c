/**
 * The host's python3, found once and remembered across runs. PATH's `python3`
 * is often a version manager's shim (pyenv, asdf: a bash script that picks a
 * version and execs it, a few hundred ms a start on a loaded VM); every python
 * the harness starts runs the real binary the shim would have chosen.
 *
 * Resolving it means starting it once (`python3 -I -c ...`, with site: in a
 * virtual environment it is site that sets sys.prefix), reading the real path
 * of `sys.executable`, `sys.prefix`, `sys.base_prefix` and the version. That
 * answer is kept in a small JSON file in the user's cache directory
 * (`$A2A_BENCH_CACHE_DIR`, else `$XDG_CACHE_HOME/a2a-bench`, else
 * `~/.cache/a2a-bench`; `A2A_BENCH_PYTHON_CACHE=off` turns it off), under a key
 * made of what decides which interpreter PATH's `python3` starts:
 * - the file PATH finds (its path, size, mtime, inode);
 * - when that file is not itself an ELF binary (a shim): the environment
 *   variables and the files a version manager reads to choose (`PYENV_VERSION`,
 *   `.python-version` / `.tool-versions` in the working directory and every
 *   parent, the global version files), each by its mtime or absence.
 * On use the remembered binary is checked with one stat (path, size, mtime,
 * inode) and must still be an ELF file; any difference, a missing or corrupt
 * cache file, or a key not seen before starts the interpreter again and
 * rewrites the entry. Nothing in the cache is trusted beyond choosing which
 * binary to start: the sandbox and the checker run it as they would have.
 */
import { closeSync, openSync, readFileSync, readSync, statSync, type Stats } from "node:fs";
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { runCommand, succeeded } from "../../process/index.js";
import { SandboxError } from "../errors.js";

export interface HostPython {
  /** Real path of the interpreter binary (an ELF file, never a shim). */
  python: string;
  /** Directories the interpreter needs (sys.prefix, sys.base_prefix), real paths. */
  pythonPrefixes: string[];
  /** `sys.version` of the binary (first line). */
  version: string;
  /** True when PATH's python3 is a virtual environment's (sys.prefix ≠ sys.base_prefix): it needs its site. */
  venv: boolean;
}

/** One remembered answer: the interpreter and the identity of its binary when it was probed. */
interface CacheEntry extends HostPython {
  size: number;
  mtimeMs: number;
  ino: number;
}

interface CacheFile {
  version: 1;
  entries: Record<string, CacheEntry>;
}

/** Entries kept (one per distinct key: working directories with their own version files, PATH changes). */
const MAX_ENTRIES = 32;
/** Bound on the probe run, ms (it takes milliseconds; a loaded host may take seconds). */
const PROBE_TIMEOUT_MS = 10_000;
/** Variables a version manager or environment reads to pick the interpreter. */
const SELECTOR_VARS = [
  "PYENV_VERSION",
  "PYENV_ROOT",
  "PYENV_DIR",
  "ASDF_PYTHON_VERSION",
  "ASDF_DATA_DIR",
  "ASDF_DEFAULT_TOOL_VERSIONS_FILENAME",
  "VIRTUAL_ENV",
  "CONDA_PREFIX",
] as const;
/** Files a version manager reads in the working directory and each parent. */
const SELECTOR_FILES = [".python-version", ".tool-versions"] as const;

/** The cache file, or null when turned off. */
export function hostPythonCachePath(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env["A2A_BENCH_PYTHON_CACHE"] === "off") return null;
  const home = env["HOME"] || homedir();
  const root = env["A2A_BENCH_CACHE_DIR"] || join(env["XDG_CACHE_HOME"] || join(home, ".cache"), "a2a-bench");
  return join(root, "host-python.json");
}

/** First `name` on PATH (as found, not resolved), or null. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env["PATH"] ?? "/usr/bin:/bin").split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      if (statSync(p).isFile()) return p;
    } catch {
      /* not here */
    }
  }
  return null;
}

/** Whether the file starts with the ELF magic (a binary, not a script shim). */
export function isElf(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const b = Buffer.alloc(4);
    return readSync(fd, b, 0, 4, 0) === 4 && b.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

const identity = (s: Stats | null): string => (s ? `${s.size}:${s.mtimeMs}:${s.ino}` : "-");

/** The files a shim may read to choose a version: per directory from `cwd` up, and the global ones. */
function selectorFiles(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const files: string[] = [];
  for (let dir = cwd; ; dir = dirname(dir)) {
    for (const f of SELECTOR_FILES) files.push(join(dir, f));
    if (dirname(dir) === dir) break;
  }
  const home = env["HOME"] || homedir();
  files.push(join(env["PYENV_ROOT"] || join(home, ".pyenv"), "version"));
  files.push(join(home, env["ASDF_DEFAULT_TOOL_VERSIONS_FILENAME"] || ".tool-versions"));
  return files;
}

/**
 * The cache key of PATH's python3 as found at `found`: its identity, and for a shim what it chooses by.
 * Pure of everything but stat calls.
 */
export function hostPythonKey(found: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const parts = [`found=${found}`, `id=${identity(statOrNull(found))}`];
  if (!isElf(found)) {
    for (const v of SELECTOR_VARS) parts.push(`${v}=${env[v] ?? "-"}`);
    for (const f of selectorFiles(env, cwd)) parts.push(`${f}=${identity(statOrNull(f))}`);
  }
  return createHash("sha256").update(parts.join("\n")).digest("hex");
}

function readCache(path: string): CacheFile {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as CacheFile;
    if (parsed && parsed.version === 1 && parsed.entries && typeof parsed.entries === "object") return parsed;
  } catch {
    /* absent or corrupt: probed again */
  }
  return { version: 1, entries: {} };
}

/** The remembered entry when its binary is still the one probed (one stat, plus the ELF check). */
function stillValid(e: CacheEntry | undefined): HostPython | null {
  if (
    !e ||
    typeof e.python !== "string" ||
    !Array.isArray(e.pythonPrefixes) ||
    typeof e.version !== "string" ||
    typeof e.venv !== "boolean"
  )
    return null;
  const s = statOrNull(e.python);
  if (!s || !s.isFile() || s.size !== e.size || s.mtimeMs !== e.mtimeMs || s.ino !== e.ino) return null;
  if (!isElf(e.python)) return null;
  return { python: e.python, pythonPrefixes: e.pythonPrefixes, version: e.version, venv: e.venv };
}

/** Start PATH's python3 once and ask it what it is. */
async function probe(found: string): Promise<HostPython> {
  // Not -S: in a virtual environment it is site that sets sys.prefix to the environment.
  const code =
    "import sys,os;print(os.path.realpath(sys.executable));print(os.path.realpath(sys.prefix));" +
    "print(os.path.realpath(sys.base_prefix));print(sys.version.splitlines()[0])";
  const o = await runCommand(found, ["-I", "-c", code], { timeoutMs: PROBE_TIMEOUT_MS });
  if (!succeeded(o))
    throw new SandboxError(
      "E_SANDBOX_UNAVAILABLE",
      `python3 on PATH (${found}) did not start: ${(o.spawnError ?? o.stderr).trim().slice(-300)}`,
    );
  const [exe, prefix, basePrefix, version] = o.stdout.trim().split("\n");
  if (!exe || !prefix || !basePrefix)
    throw new SandboxError("E_SANDBOX_UNAVAILABLE", `python3 on PATH (${found}) did not say where it is`);
  return {
    python: exe,
    pythonPrefixes: [...new Set([prefix, basePrefix])],
    version: version ?? "",
    venv: prefix !== basePrefix,
  };
}

export interface ResolveHostPythonOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Cache file (default {@link hostPythonCachePath}); null: no cache. */
  cachePath?: string | null;
}

/**
 * PATH's python3 as its real binary: from the cache when its key and binary are unchanged, else probed (and
 * remembered when the answer is an ELF binary). Rejects with E_SANDBOX_UNAVAILABLE when there is none.
 */
export async function resolveHostPython(options: ResolveHostPythonOptions = {}): Promise<HostPython> {
  const env = options.env ?? process.env;
  const found = findOnPath("python3", env);
  if (!found) throw new SandboxError("E_SANDBOX_UNAVAILABLE", "python3 not found on PATH (the local sandbox needs it)");
  const cachePath = options.cachePath === undefined ? hostPythonCachePath(env) : options.cachePath;
  const key = cachePath ? hostPythonKey(found, env, options.cwd ?? process.cwd()) : "";
  const cache = cachePath ? readCache(cachePath) : null;
  const hit = cache ? stillValid(cache.entries[key]) : null;
  if (hit) return hit;
  const answer = await probe(found);
  const s = statOrNull(answer.python);
  if (cachePath && cache && s?.isFile() && isElf(answer.python)) {
    const fresh = readCache(cachePath); // another run may have written meanwhile
    delete fresh.entries[key];
    const kept = Object.entries(fresh.entries).slice(-(MAX_ENTRIES - 1));
    const entries = Object.fromEntries([...kept, [key, { ...answer, size: s.size, mtimeMs: s.mtimeMs, ino: s.ino }]]);
    await writeFileAtomic(cachePath, `${JSON.stringify({ version: 1, entries } satisfies CacheFile)}\n`).catch(() => {
      /* a read-only cache directory only costs the probe next time */
    });
  }
  return answer;
}
