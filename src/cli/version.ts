/** The package version, read once from package.json (`--version` of every command). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../util/package-root.js";

let cached: string | undefined;

/** `version` of the package.json next to schemas/ (the installed package's own). */
export function packageVersion(): string {
  if (cached === undefined) {
    const { version } = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version?: unknown };
    cached = typeof version === "string" ? version : "unknown";
  }
  return cached;
}
