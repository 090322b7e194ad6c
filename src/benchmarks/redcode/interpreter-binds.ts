/**
 * RedCode binds a host directory over /root (so that /root/.bashrc lands on
 * the host), which hides what the sandbox bound under /root before it — on
 * hosts whose python3 lives under /root (pyenv), the interpreter itself. The
 * sandbox's own probe finds the interpreter the same way (python3 on PATH,
 * real sys.prefix and sys.base_prefix); this module asks once per process and
 * returns read-only binds that put those directories back on top.
 */
import { runCommand, succeeded } from "../../process/index.js";

/** Bound on the interpreter question, ms (a pyenv shim starts in ~85 ms). */
const PROBE_TIMEOUT_MS = 10_000;

let cached: Promise<string[]> | null = null;

async function askPrefixes(): Promise<string[]> {
  const code = "import sys,os;print(os.path.realpath(sys.prefix));print(os.path.realpath(sys.base_prefix))";
  const o = await runCommand("python3", ["-I", "-c", code], { timeoutMs: PROBE_TIMEOUT_MS });
  if (!succeeded(o)) return [];
  return [
    ...new Set(
      o.stdout
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("/")),
    ),
  ];
}

/** Real prefixes of the host's python3 (cached; never rejects: [] when python3 cannot be run). */
export function pythonPrefixes(): Promise<string[]> {
  cached ??= askPrefixes();
  return cached;
}

/** Read-only binds restoring the interpreter's directories below /root, if any. */
export async function interpreterBinds(): Promise<Array<{ host: string; target: string; writable: false }>> {
  return (await pythonPrefixes())
    .filter((p) => p.startsWith("/root/"))
    .map((p) => ({ host: p, target: p, writable: false as const }));
}
