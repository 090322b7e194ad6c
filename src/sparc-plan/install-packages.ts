/** The plan's `installPackages(packages, language)`, installing into a2a-bench's sandbox package cache. */
import type { Logger } from "../util/logger.js";
import { installPackages as install, type InstalledPackages } from "../benchmarks/sparc/packages/install.js";
import type { PackageLanguage } from "../benchmarks/sparc/config.js";

export interface InstallPackagesOptions {
  /** Cache root; default `$A2A_BENCH_CACHE_DIR`, `$XDG_CACHE_HOME/a2a-bench` or `~/.cache/a2a-bench`. */
  cacheDir?: string;
  /** npm registry; default `$npm_config_registry` or https://registry.npmjs.org/. */
  npmRegistry?: string;
  /** Python index; default `$PIP_INDEX_URL` or https://pypi.org/simple/. */
  pipIndexUrl?: string;
  logger?: Logger;
  signal?: AbortSignal;
}

/**
 * Install (or find cached) `packages` for `language` into the cache that
 * runs listing the same set under `packages` use. Resolves to where they
 * are (null for an empty list); rejects with PackageSourceUnreachableError /
 * PackageNotFoundError / PackageInstallError.
 */
export function installPackages(
  packages: string[],
  language: PackageLanguage,
  options: InstallPackagesOptions = {},
): Promise<InstalledPackages | null> {
  return install(packages, language, options);
}
