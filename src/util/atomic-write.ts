import { mkdir, open, rename, rm, type FileHandle } from "node:fs/promises";
import { dirname, basename, join } from "node:path";
import { randomBytes } from "node:crypto";

/**
 * Write a file so that readers see either the old or the new content, never a
 * partial one: write to a sibling temp file, fsync, rename over the target.
 * On failure the temp file is removed and the target is untouched.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await atomically(path, (handle) => handle.writeFile(data));
}

/**
 * {@link writeFileAtomic} of text produced piece by piece (never held whole):
 * the pieces are written to the temp file as they come, then fsync and rename.
 */
export async function writeChunksAtomic(path: string, chunks: AsyncIterable<string>): Promise<void> {
  await atomically(path, async (handle) => {
    let buffered = "";
    for await (const chunk of chunks) {
      buffered += chunk;
      if (buffered.length >= 1 << 16) {
        await handle.write(buffered);
        buffered = "";
      }
    }
    await handle.write(buffered);
  });
}

/** Fill a fresh temp file beside `path`, fsync it and rename it into place; on any failure remove it. */
async function atomically(path: string, fill: (handle: FileHandle) => Promise<unknown>): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  let handle: FileHandle | undefined;
  try {
    handle = await open(tmp, "wx", 0o644);
    await fill(handle);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(tmp, path);
  } catch (err) {
    if (handle) await handle.close().catch(() => {});
    await rm(tmp, { force: true }).catch(() => {});
    throw err;
  }
}

/** JSON variant of {@link writeFileAtomic}: pretty, trailing newline. */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(value, null, 2) + "\n");
}
