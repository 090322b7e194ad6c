import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { existsSync } from "node:fs";

/**
 * The package's root directory (where package.json, schemas/ and
 * scenario_smi/ live), found from this module's location so it works from
 * src/ (vitest) and dist/ (built) alike.
 */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "schemas"))) return dir;
    dir = dirname(dir);
  }
  throw new Error("a2a-bench: cannot locate the package root (package.json + schemas/)");
})();

export const schemasDir = join(packageRoot, "schemas");
export const defaultScenarioDir = join(packageRoot, "scenario_smi");
/** The CLI entry of the built package, used to spawn our own subcommands. */
export const cliEntry = join(packageRoot, "dist", "cli.js");
