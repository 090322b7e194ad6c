/**
 * `${NAME}` placeholders in a scenario's `env` values, as leaderboard
 * repositories write them for secrets their workflow injects
 * (`OPENAI_API_KEY = "${OPENAI_API_KEY}"`). Launching locally fills them from
 * the env file and the environment; a placeholder nothing fills is an error,
 * never the literal text handed to an agent.
 */
import { BenchError } from "../util/errors.js";

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** An `env` value names a variable that is set nowhere. */
export class UnsetPlaceholderError extends BenchError {
  constructor(agent: string, key: string, name: string) {
    super(
      "E_SCENARIO_ENV",
      `${agent}: env ${key} refers to \${${name}}, which is not set: put ${name}=… in the env file (--env-file) or export it`,
    );
  }
}

/**
 * Fill every `${NAME}` of `env`'s values from `sources` (first source that has
 * the name wins). Throws {@link UnsetPlaceholderError} for the first name no
 * source has (an empty value counts as set).
 */
export function fillPlaceholders(
  agent: string,
  env: Readonly<Record<string, string>>,
  sources: ReadonlyArray<Readonly<Record<string, string | undefined>>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    out[key] = value.replace(PLACEHOLDER, (_, name: string) => {
      for (const s of sources) {
        const v = s[name];
        if (v !== undefined) return v;
      }
      throw new UnsetPlaceholderError(agent, key, name);
    });
  }
  return out;
}
