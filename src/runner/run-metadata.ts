/** Host and version facts recorded in run_metadata.json. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import os from "node:os";
import { packageRoot } from "../util/package-root.js";

let cachedVersion: string | undefined;

/** This package's version from package.json. */
export function packageVersion(): string {
  cachedVersion ??= (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string })
    .version;
  return cachedVersion;
}

/** Versions and host facts (no secrets, no environment). */
export function hostInfo(): Record<string, unknown> {
  return {
    a2a_bench_version: packageVersion(),
    node_version: process.version,
    platform: process.platform,
    arch: process.arch,
    os_release: os.release(),
    cpus: os.availableParallelism(),
    total_memory_bytes: os.totalmem(),
    hostname: os.hostname(),
  };
}
