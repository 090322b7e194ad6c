/** Find an executable the way execvp would: a path with a slash as is, else each PATH entry. */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Absolute path of `program`, or undefined when it cannot be run. */
export function resolveCommand(program: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (program.includes("/")) return isExecutable(program) ? program : undefined;
  for (const dir of (env["PATH"] ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, program);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}
