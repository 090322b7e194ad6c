/** The names a scaffolded benchmark or backend is written with, from the one the user gives. */
import { UsageError } from "../util/errors.js";

export interface ScaffoldNames {
  /** As given: the registry's name and the folder's (lower-case kebab-case). */
  name: string;
  /** camelCase, for values (`toyBench`). */
  camel: string;
  /** PascalCase, for types and factories (`ToyBench`). */
  pascal: string;
  /** The descriptor's export (`toyBenchBenchmark`, `toyBoxBackend`). */
  ident: string;
  /** The rows' `$defs` entry (`toy_bench_row`). */
  row: string;
}

const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** The names of `name`; a UsageError unless it is lower-case kebab-case. */
export function scaffoldNames(name: string, kind: "benchmark" | "backend"): ScaffoldNames {
  if (!NAME.test(name))
    throw new UsageError(
      `${kind} name must be lower-case kebab-case (letters, digits, single dashes; a letter first), got ${JSON.stringify(name)}`,
    );
  const camel = name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  const pascal = camel[0]!.toUpperCase() + camel.slice(1);
  return {
    name,
    camel,
    pascal,
    ident: kind === "benchmark" ? `${camel}Benchmark` : `${camel}Backend`,
    row: `${name.replaceAll("-", "_")}_row`,
  };
}
