/**
 * Paths asked for by the browser, resolved inside one run directory or
 * refused: no `..` segment, no absolute path, no NUL, and — after symlinks
 * are followed — still inside the run directory (a link pointing out of it is
 * refused like a `..`).
 */
import { constants } from "node:fs";
import { open, realpath, stat, type FileHandle } from "node:fs/promises";
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

/**
 * {@link resolveRunFile}, opened: the file opened is the one checked (same
 * device and inode), so a directory swapped for a symbolic link between the
 * check and the open is refused, and a named pipe never blocks the open.
 */
export async function openRunFileSafely(dir: string, rel: string): Promise<FileHandle> {
  const real = await resolveRunFile(dir, rel);
  const checked = await stat(real);
  const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const handle = await open(real, flags).catch(() => {
    throw new ViewPathError(403, "the file changed while being opened");
  });
  const opened = await handle.stat();
  if (!opened.isFile() || opened.dev !== checked.dev || opened.ino !== checked.ino) {
    await handle.close();
    throw new ViewPathError(403, "the file changed while being opened");
  }
  return handle;
}
