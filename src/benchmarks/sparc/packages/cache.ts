/**
 * Where installed package sets live. One directory per (language, source,
 * sorted package specs): `<root>/<npm|python>/<sha256 prefix>/`. A set is
 * installed into a temporary sibling and renamed into place only when the
 * installer succeeded, so a directory that exists is complete; the next run
 * with the same set finds it and touches no network.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join } from "node:path";
import type { PackageLanguage } from "../config.js";

/**
 * Root of the package cache: `$A2A_BENCH_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/a2a-bench`, else `~/.cache/a2a-bench`.
 */
export function defaultPackageCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env["A2A_BENCH_CACHE_DIR"];
  if (explicit) return explicit;
  const xdg = env["XDG_CACHE_HOME"];
  return join(xdg || join(homedir(), ".cache"), "a2a-bench");
}

/** Cache key of a package set: order and duplicates of specs do not matter. */
export function packageSetKey(language: PackageLanguage, specs: readonly string[], source: string): string {
  const canonical = JSON.stringify({ language, source, specs: [...new Set(specs)].sort() });
  return createHash("sha256").update(canonical).digest("hex").slice(0, 20);
}

/** Directory of a package set in the cache. */
export function packageSetDir(root: string, language: PackageLanguage, key: string): string {
  return join(root, language === "javascript" ? "npm" : "python", key);
}
