/**
 * `node:util` parseArgs in strict mode, with its errors turned into a
 * UsageError (the dispatcher prints the one-line reason and exits 2). Every
 * subcommand's pure parser goes through here.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./errors.js";

export function parseUsage<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    // strict is forced on: an unknown flag is a usage error, never ignored.
    return parseArgs({ ...config, strict: true } as T);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
