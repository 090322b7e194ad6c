/** Typed errors of package installation; all are raised before any test case runs. */
import { BenchError } from "../../../util/errors.js";
import type { PackageLanguage } from "../config.js";

/** The package source (registry / index) could not be reached for a package. */
export class PackageSourceUnreachableError extends BenchError {
  readonly packageName: string;
  readonly source: string;
  readonly language: PackageLanguage;
  constructor(
    language: PackageLanguage,
    packageName: string,
    source: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      "E_PACKAGE_SOURCE_UNREACHABLE",
      `cannot install ${language} package "${packageName}": package source ${source} is unreachable (${reason})`,
      options,
    );
    this.packageName = packageName;
    this.source = source;
    this.language = language;
  }
}

/** The source answered but does not know the package. */
export class PackageNotFoundError extends BenchError {
  readonly packageName: string;
  readonly source: string;
  constructor(language: PackageLanguage, packageName: string, source: string) {
    super("E_PACKAGE_NOT_FOUND", `${language} package "${packageName}" was not found at ${source}`);
    this.packageName = packageName;
    this.source = source;
  }
}

/** The installer (npm / pip) ran and failed. */
export class PackageInstallError extends BenchError {
  readonly packages: readonly string[];
  constructor(language: PackageLanguage, packages: readonly string[], detail: string, options?: { cause?: unknown }) {
    super("E_PACKAGE_INSTALL", `installing ${language} packages [${packages.join(", ")}] failed: ${detail}`, options);
    this.packages = packages;
  }
}
