/**
 * Copy-on-write overlays for `ExecRequest.overlays`. bubblewrap 0.8 (Debian 12)
 * has no --overlay option (it came in 0.9), so when we are root we mount
 * overlayfs ourselves in a private mount namespace (`unshare -m`) and bwrap,
 * started from inside it, binds the merged trees over their targets.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { tmpdir } from "node:os";
import type { ExecRequest } from "../types.js";
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

/** Validate and stage overlays; throws Error with a message naming the bad field. */
export async function prepareOverlays(
  unshare: string,
  overlays: NonNullable<ExecRequest["overlays"]>,
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
      const n = shArgs.length;
      shArgs.push(o.lowerDir ?? o.target, o.upperDir, work, merged);
      lines.push(
        `mount -t overlay a2a-overlay -o "lowerdir=\${${n + 1}},upperdir=\${${n + 2}},workdir=\${${n + 3}}" "\${${n + 4}}"`,
      );
      mounts.push({ host: merged, target: o.target, writable: true });
    }
  } catch (e) {
    await Promise.all(made.map((p) => rm(p, { recursive: true, force: true })));
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
      await Promise.all(made.map((p) => rm(p, { recursive: true, force: true })));
    },
  };
}
