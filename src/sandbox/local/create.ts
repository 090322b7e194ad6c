/**
 * The local backend's factory: probe the isolation once (warnings logged),
 * refuse hidden paths the bwrap view cannot hide, then the sandbox.
 */
import { homedir } from "node:os";
import { packageRoot } from "../../util/package-root.js";
import type { SandboxFactory } from "../backend.js";
import type { LocalOptions } from "./levels.js";
import { SandboxError } from "../errors.js";
import { probeIsolation, runtimeTrees, type IsolationProbe } from "./probe.js";
import { LocalSandbox } from "./local-sandbox.js";
import { hostViewArgs, readHostView } from "./host-view.js";

/** Refuse, up front, hidden paths the bwrap view cannot hide (one holding /usr, say). */
function checkHidden(tools: IsolationProbe["tools"], hidden: readonly string[]): void {
  try {
    hostViewArgs(readHostView(runtimeTrees(tools), hidden));
  } catch (e) {
    throw new SandboxError("E_SANDBOX_OPTIONS", `hiddenPaths: ${(e as Error).message}`);
  }
}

export const createLocalSandbox: SandboxFactory = async (options, limits) => {
  // Checked by the descriptor's backendOptions before this factory loaded (sandbox/index.ts).
  const own = (options.backendOptions ?? {}) as LocalOptions;
  const probe = await probeIsolation(own.forceIsolation);
  for (const w of probe.warnings) options.logger.warn({ isolation: probe.level }, w);
  const hidden = [...new Set([...(options.hiddenPaths ?? []), homedir(), packageRoot])];
  if (probe.level === "bwrap") checkHidden(probe.tools, hidden);
  return new LocalSandbox({
    probe,
    limits,
    logger: options.logger,
    hidden,
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
  });
};
