/**
 * Packages under `optionalDependencies` (`@e2b/code-interpreter`, `esbuild-wasm`): npm installs them by
 * default, `npm install --omit=optional` (or a failed download) leaves them out. Their loaders import them
 * lazily and tell "this package is not installed" apart from any other failure, so the user gets the
 * install command instead of a module-resolution stack.
 */

/** How to add an optional dependency that an install left out. */
export function installCommand(packageName: string): string {
  return `npm install ${packageName}`;
}

/**
 * Whether `err` (from `import()` or `require`) says `packageName` itself cannot be found — not one of its
 * own imports (a broken install of it is a different failure and is not reported as "not installed").
 */
export function isMissingPackage(err: unknown, packageName: string): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  // Node's wording: ESM "Cannot find package '<name>' imported from …", CJS "Cannot find module '<name>'".
  return err.message.includes(`'${packageName}'`);
}

/** The sentence an error uses for a missing optional dependency: what needs it and how to install it. */
export function missingPackageMessage(packageName: string, neededFor: string): string {
  return (
    `${neededFor} needs the optional package ${packageName}, which is not installed ` +
    `(an install with --omit=optional leaves it out): run \`${installCommand(packageName)}\``
  );
}
