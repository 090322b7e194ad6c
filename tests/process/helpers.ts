/** Fixtures and probes for the process layer's tests. */
import { join, resolve } from "node:path";
import { procInfo, type ChildHandle } from "../../src/process/index.js";

export const FIXTURES = resolve(import.meta.dirname, "..", "fixtures", "process");
export const fixture = (name: string): string => join(FIXTURES, name);

/** Whether `pid` is a live process (a zombie nobody reaped counts as gone). */
export function alive(pid: number): boolean {
  return procInfo(pid) !== undefined;
}

/** Resolves with the child's first stdout line (the fixtures report readiness that way). */
export function firstLine(handle: ChildHandle): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = "";
    const out = handle.child?.stdout;
    if (!out) return reject(new Error("no stdout pipe"));
    out.setEncoding("utf8");
    out.on("data", (d: string) => {
      buf += d;
      const nl = buf.indexOf("\n");
      if (nl !== -1) resolve(buf.slice(0, nl));
    });
    out.once("end", () => reject(new Error(`stdout ended before a line: ${buf}`)));
  });
}
