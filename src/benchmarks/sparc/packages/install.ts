/**
 * Install packages for the sandbox, never into the host's global environment
 * nor the project's node_modules:
 *
 * - javascript: `npm install --ignore-scripts` into `<cache>/npm/<key>/`; its
 *   `node_modules` becomes the sandbox's NODE_PATH.
 * - python: `python3 -m pip install --target <cache>/python/<key>/site
 *   --only-binary=:all:`; that directory becomes the sandbox's PYTHONPATH.
 *
 * Installers run on the host but never run package code there: npm lifecycle
 * scripts are disabled and pip may only use wheels (no setup.py builds).
 * Every package is first probed at its source (see source-check.ts).
 */
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Logger } from "../../../util/logger.js";
import { writeJsonAtomic } from "../../../util/atomic-write.js";
import type { PackageLanguage } from "../config.js";
import { assertNever } from "../../../util/errors.js";
import { PackageInstallError } from "./errors.js";
import { defaultPackageCacheRoot, packageSetDir, packageSetKey } from "./cache.js";
import { npmPackageName, npmPackageUrl, pipPackageName, pipPackageUrl } from "./package-spec.js";
import { probePackage } from "./source-check.js";
import { runTool, type ToolOutcome } from "./run-tool.js";

/** Default npm registry when neither the option nor `npm_config_registry` is set. */
export const DEFAULT_NPM_REGISTRY = "https://registry.npmjs.org/";
/** Default Python package index when neither the option nor `PIP_INDEX_URL` is set. */
export const DEFAULT_PIP_INDEX = "https://pypi.org/simple/";
/** Time limit of one installer run, ms. */
export const INSTALL_TIMEOUT_MS = 300_000;
/** Marker written inside a completed package set (records what it holds). */
const MARKER = "a2a-bench-packages.json";

export interface InstallOptions {
  /** Cache root; default {@link defaultPackageCacheRoot}. */
  cacheDir?: string;
  /** npm registry URL; default `$npm_config_registry` or {@link DEFAULT_NPM_REGISTRY}. */
  npmRegistry?: string;
  /** Python index URL (PEP 503); default `$PIP_INDEX_URL` or {@link DEFAULT_PIP_INDEX}. */
  pipIndexUrl?: string;
  /** Environment for the installers and defaults; default process.env. */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  signal?: AbortSignal;
}

/** An installed package set, ready to be exposed to sandboxed programs. */
export interface InstalledPackages {
  language: PackageLanguage;
  packages: string[];
  /** Host directory to expose read-only to the sandbox (node_modules, or the pip target). */
  dir: string;
  /** Environment the program needs to find them (NODE_PATH or PYTHONPATH). */
  env: Record<string, string>;
  /** True when the set was already in the cache (no network used). */
  cached: boolean;
  source: string;
}

function sourceFor(language: PackageLanguage, options: InstallOptions): string {
  const env = options.env ?? process.env;
  switch (language) {
    case "javascript":
      return options.npmRegistry ?? env["npm_config_registry"] ?? env["NPM_CONFIG_REGISTRY"] ?? DEFAULT_NPM_REGISTRY;
    case "python":
      return options.pipIndexUrl ?? env["PIP_INDEX_URL"] ?? DEFAULT_PIP_INDEX;
    default:
      return assertNever(language, "package language");
  }
}

function exposed(language: PackageLanguage, setDir: string): { dir: string; env: Record<string, string> } {
  if (language === "javascript") {
    const dir = join(setDir, "node_modules");
    return { dir, env: { NODE_PATH: dir } };
  }
  const dir = join(setDir, "site");
  return { dir, env: { PYTHONPATH: dir } };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function describeFailure(o: ToolOutcome, timeoutMs: number): string {
  if (o.spawnError) return `could not start the installer: ${o.spawnError}`;
  if (o.timedOut) return `installer timed out after ${timeoutMs} ms`;
  if (o.isCanceled) return "canceled";
  const tail = o.stderrTail.trim().split("\n").slice(-6).join(" | ");
  return `exit ${o.exitCode ?? o.signal}${tail ? `: ${tail}` : ""}`;
}

function installerCommand(
  language: PackageLanguage,
  specs: string[],
  target: string,
  source: string,
): { command: string; args: string[] } {
  if (language === "javascript") {
    return {
      command: "npm",
      args: [
        "install",
        "--prefix",
        target,
        "--registry",
        source,
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--no-package-lock",
        "--no-save",
        "--fetch-retries",
        "1",
        "--loglevel",
        "error",
        "--",
        ...specs,
      ],
    };
  }
  return {
    command: "python3",
    args: [
      "-m",
      "pip",
      "install",
      "--target",
      join(target, "site"),
      "--index-url",
      source,
      "--only-binary=:all:",
      "--no-input",
      "--disable-pip-version-check",
      "--retries",
      "1",
      "--timeout",
      "30",
      "--",
      ...specs,
    ],
  };
}

/**
 * Install `specs` for `language` (the plan's `installPackages(packages,
 * language)`), or reuse the cached set. Throws a typed error naming the
 * package and the source when the source is unreachable, before anything is
 * installed. An empty list resolves to null.
 */
export async function installPackages(
  specs: readonly string[],
  language: PackageLanguage,
  options: InstallOptions = {},
): Promise<InstalledPackages | null> {
  if (specs.length === 0) return null;
  const packages = [...new Set(specs)].sort();
  const source = sourceFor(language, options);
  const root = options.cacheDir ?? defaultPackageCacheRoot(options.env);
  const setDir = packageSetDir(root, language, packageSetKey(language, packages, source));
  const view = exposed(language, setDir);
  if (await exists(join(setDir, MARKER))) {
    options.logger?.info({ language, packages, dir: setDir }, "packages: using cached set");
    return { language, packages, ...view, cached: true, source };
  }
  for (const spec of packages) {
    const name = language === "javascript" ? npmPackageName(spec) : pipPackageName(spec);
    const url = language === "javascript" ? npmPackageUrl(source, name) : pipPackageUrl(source, name);
    await probePackage(language, name, source, url, options.signal);
  }
  const tmp = `${setDir}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  await mkdir(tmp, { recursive: true });
  try {
    const { command, args } = installerCommand(language, packages, tmp, source);
    options.logger?.info({ language, packages, source }, "packages: installing");
    const outcome = await runTool({
      command,
      args,
      cwd: tmp,
      env: { ...(options.env ?? process.env) },
      timeoutMs: INSTALL_TIMEOUT_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (outcome.exitCode !== 0)
      throw new PackageInstallError(language, packages, describeFailure(outcome, INSTALL_TIMEOUT_MS));
    await writeJsonAtomic(join(tmp, MARKER), { language, packages, source, installedAt: new Date().toISOString() });
    try {
      await rename(tmp, setDir);
    } catch (err) {
      // Another run completed the same set first: theirs is as good as ours.
      if (!(await exists(join(setDir, MARKER)))) throw err;
      await rm(tmp, { recursive: true, force: true });
    }
  } catch (err) {
    await rm(tmp, { recursive: true, force: true }).catch(() => {});
    throw err;
  }
  options.logger?.info({ language, packages, dir: setDir }, "packages: installed");
  return { language, packages, ...view, cached: false, source };
}
