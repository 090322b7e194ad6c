/**
 * Copy-on-write overlays for `ExecRequest.overlays`. bubblewrap 0.8 (Debian 12)
 * has no --overlay option (it came in 0.9), so when we are root we mount
 * overlayfs ourselves in a private mount namespace (`unshare -m`) and bwrap,
 * started from inside it, binds the merged trees over their targets.
 *
 * An overlay's default lower layer is what the job would see at its target
 * without it (host-view.ts), never more of the host: /usr is the host's /usr
 * (hidden paths are masked again on top, launch-command.ts); /etc is a fresh
 * copy of the allowlisted /etc entries; a directory the sandbox does not
 * show (/var) starts empty.
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { removeTree } from "../remove-tree.js";
import { tmpdir } from "node:os";
import { cp } from "node:fs/promises";
import type { ExecRequest } from "../types.js";
import { overlayLower, type HostViewInput } from "./host-view.js";
import { MASKED_FILES, type LaunchCommand, type MountSpec } from "./launch-command.js";

export interface PreparedOverlays {
  mounts: MountSpec[];
  /**
   * Masked host files (e.g. /etc/shadow) that an overlay already hides behind
   * an empty file in its upper layer: the program may replace them with its
   * own (RedCode's fake /etc/shadow) without ever seeing the host's.
   */
  shadowed: string[];
  /** Wrap the bwrap command so the overlays are mounted first. */
  wrap(cmd: LaunchCommand): LaunchCommand;
  cleanup(): Promise<void>;
}

const FORBIDDEN = /[,:\n\\]/;

/** The default lower layer of an overlay of `target`: the host dir itself, or a fresh copy of what the view shows there. */
async function defaultLower(view: HostViewInput, target: string, made: string[]): Promise<string> {
  const lower = overlayLower(view, target);
  if ("host" in lower) return lower.host;
  const dir = await mkdtemp(join(tmpdir(), "a2a-ovl-lower-"));
  made.push(dir);
  for (const c of lower.copy) {
    await mkdir(dirname(join(dir, c.rel)), { recursive: true });
    await cp(c.from, join(dir, c.rel), { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  }
  return dir;
}

/** Validate and stage overlays; throws Error with a message naming the bad field. */
export async function prepareOverlays(
  unshare: string,
  overlays: NonNullable<ExecRequest["overlays"]>,
  view: HostViewInput,
): Promise<PreparedOverlays> {
  const made: string[] = [];
  const mounts: MountSpec[] = [];
  const shadowed: string[] = [];
  const shArgs: string[] = [];
  const lines: string[] = ["set -e"];
  try {
    for (const [i, o] of overlays.entries()) {
      for (const [k, v] of Object.entries({
        target: o.target,
        upperDir: o.upperDir,
        lowerDir: o.lowerDir ?? o.target,
      })) {
        if (!v.startsWith("/") || FORBIDDEN.test(v))
          throw new Error(`overlays[${i}].${k} must be an absolute path without , : \\ or newline: ${v}`);
      }
      // Hide masked host files under this target behind empty upper-layer files
      // before the overlay is mounted, so the host's content is never visible.
      for (const f of MASKED_FILES) {
        const rel = relative(o.target, f);
        if (rel === "" || rel.startsWith("..") || rel.startsWith("/")) continue;
        const hidden = join(o.upperDir, rel);
        await mkdir(dirname(hidden), { recursive: true });
        await writeFile(hidden, "", { mode: 0o600 });
        shadowed.push(f);
      }
      const work = await mkdtemp(join(dirname(o.upperDir), ".a2a-ovl-work-"));
      const merged = await mkdtemp(join(tmpdir(), "a2a-ovl-merged-"));
      made.push(work, merged);
      const lower = o.lowerDir ?? (await defaultLower(view, o.target, made));
      const n = shArgs.length;
      shArgs.push(lower, o.upperDir, work, merged);
      lines.push(
        `mount -t overlay a2a-overlay -o "lowerdir=\${${n + 1}},upperdir=\${${n + 2}},workdir=\${${n + 3}}" "\${${n + 4}}"`,
      );
      mounts.push({ host: merged, target: o.target, writable: true });
    }
  } catch (e) {
    await Promise.all(made.map((p) => removeTree(p)));
    throw e;
  }
  lines.push(`shift ${shArgs.length}`, 'exec "$@"');
  return {
    mounts,
    shadowed,
    wrap: (cmd) => ({
      file: unshare,
      args: [
        "--mount",
        "--propagation",
        "private",
        "--",
        "/bin/sh",
        "-c",
        lines.join("\n"),
        "a2a-overlay",
        ...shArgs,
        cmd.file,
        ...cmd.args,
      ],
      spawnCwd: cmd.spawnCwd,
    }),
    cleanup: async () => {
      await Promise.all(made.map((p) => removeTree(p)));
    },
  };
}
