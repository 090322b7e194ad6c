/**
 * Ask the package source about each package before installing anything, so
 * that an offline index (PyPI here) or a wrong registry URL is reported as one
 * clear error naming the package and the source — rather than as npm's or
 * pip's retry log minutes later.
 */
import type { PackageLanguage } from "../config.js";
import { PackageNotFoundError, PackageSourceUnreachableError } from "./errors.js";

/** Time allowed for one source probe, ms. */
export const SOURCE_PROBE_TIMEOUT_MS = 10_000;

/** Reason text of a failed fetch (undici wraps the system error in `cause`). */
function fetchFailure(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ""}`;
  if ((err as Error).name === "TimeoutError") return `no answer within ${SOURCE_PROBE_TIMEOUT_MS} ms`;
  return (err as Error).message;
}

/**
 * Probe `url` (the package's page at `source`). Resolves when the source
 * knows the package; throws {@link PackageSourceUnreachableError} or
 * {@link PackageNotFoundError}.
 */
export async function probePackage(
  language: PackageLanguage,
  packageName: string,
  source: string,
  url: string,
  signal?: AbortSignal,
): Promise<void> {
  const timeout = AbortSignal.timeout(SOURCE_PROBE_TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(url, {
      method: "GET",
      headers: { accept: "application/json, text/html;q=0.9" },
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (err) {
    throw new PackageSourceUnreachableError(language, packageName, source, fetchFailure(err), { cause: err });
  }
  // Only the status matters; drop the body without reading it.
  await res.body?.cancel().catch(() => {});
  if (res.status === 404) throw new PackageNotFoundError(language, packageName, source);
  if (!res.ok) throw new PackageSourceUnreachableError(language, packageName, source, `HTTP ${res.status}`);
}
