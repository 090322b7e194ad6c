/**
 * RedCode binds a host directory over /root (so that /root/.bashrc lands on
 * the host), which hides what the sandbox bound under /root before it — on
 * hosts whose python3 lives under /root (pyenv), the interpreter itself. The
 * sandbox's own probe finds the interpreter (python3 on PATH, real sys.prefix
 * and sys.base_prefix; host-python.ts); this module reuses that answer and
 * returns read-only binds that put those directories back on top.
 */
import { probeHostPython } from "../../sandbox/local/probe.js";

/** Real prefixes of the host's python3 (the sandbox's own resolution, shared; never rejects: [] without one). */
export function pythonPrefixes(): Promise<string[]> {
  return probeHostPython().then(
    (p) => p.pythonPrefixes,
    () => [],
  );
}

/** Read-only binds restoring the interpreter's directories below /root, if any. */
export async function interpreterBinds(): Promise<Array<{ host: string; target: string; writable: false }>> {
  return (await pythonPrefixes())
    .filter((p) => p.startsWith("/root/"))
    .map((p) => ({ host: p, target: p, writable: false as const }));
}
