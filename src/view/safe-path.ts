/**
 * Paths asked for by the browser, resolved inside one run directory or
 * refused: no `..` segment, no absolute path, no NUL, and — after symlinks
 * are followed — still inside the run directory (a link pointing out of it is
 * refused like a `..`).
 */
import { realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { BenchError } from "../util/errors.js";

/** A request for a path outside the run directory, or one that is not a readable file. */
export class ViewPathError extends BenchError {
  readonly status: 400 | 403 | 404;
  constructor(status: 400 | 403 | 404, message: string) {
    super(status === 404 ? "E_VIEW_NOT_FOUND" : "E_VIEW_PATH", message);
    this.status = status;
  }
}

/** Whether `child` (real path) is `root` or below it. */
export function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel === "" || (!rel.startsWith(".." + sep) && rel !== ".." && !isAbsolute(rel));
}

/**
 * The real path of the regular file `rel` inside `dir`. `rel` is a
 * slash-separated relative path as decoded from the request.
 */
export async function resolveRunFile(dir: string, rel: string): Promise<string> {
  if (rel === "" || rel.includes("\0") || rel.includes("\\") || isAbsolute(rel) || rel.startsWith("/"))
    throw new ViewPathError(400, "a relative file path inside the run directory is expected");
  if (rel.split("/").some((seg) => seg === ".." || seg === "." || seg === ""))
    throw new ViewPathError(403, "the path leaves the run directory");
  const root = await realpath(dir).catch(() => {
    throw new ViewPathError(404, "the run directory is gone");
  });
  const real = await realpath(join(root, rel)).catch(() => {
    throw new ViewPathError(404, "no such file in the run directory");
  });
  if (!isInside(root, real)) throw new ViewPathError(403, "the path leaves the run directory (symbolic link)");
  const st = await stat(real);
  if (!st.isFile()) throw new ViewPathError(404, "not a file");
  return real;
}
