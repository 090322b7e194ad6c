/**
 * `node:util` parseArgs in strict mode, with its errors turned into a
 * UsageError (the dispatcher prints the one-line reason and exits 2). Every
 * subcommand's pure parser goes through here, so every command gets:
 * - negative numbers as values (`--seed -1`, which parseArgs alone calls
 *   "ambiguous"): the command's own validation then names the option and says
 *   what it accepts;
 * - "did you mean --x?" for an unknown flag.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./errors.js";
import { didYouMean } from "./suggest.js";

/** A number with a leading minus (`-1`, `-0.5`, `-1e3`), not a short flag. */
const NEGATIVE_NUMBER = /^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** `--opt -1` → `--opt=-1` for the options that take a value; everything else as given. */
export function joinNegativeValues(args: readonly string[], options: ParseArgsConfig["options"]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    const name = arg.startsWith("--") && !arg.includes("=") ? arg.slice(2) : undefined;
    if (name !== undefined && options?.[name]?.type === "string" && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

export function parseUsage<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  const args = joinNegativeValues(config.args ?? [], config.options);
  try {
    // strict is forced on: an unknown flag is a usage error, never ignored.
    return parseArgs({ ...config, args, strict: true }) as ReturnType<typeof parseArgs<T>>;
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      const flag = /'([^']+)'/.exec(e.message)?.[1] ?? "?";
      const known = [...Object.keys(config.options ?? {}), "help", "version"].map((n) => `--${n}`);
      throw new UsageError(
        `unknown option ${flag}${didYouMean(flag.replace(/=.*$/, ""), known, (n) => n)}; see --help`,
      );
    }
    throw new UsageError(e.message);
  }
}
