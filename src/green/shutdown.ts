/**
 * SIGTERM/SIGINT on the green server: cancel every runner (SIGTERM, SIGKILL
 * after 2 s), close the server, exit 128+n (smi_bench's behaviour).
 */
import { constants as osConstants } from "node:os";
import type { Logger } from "../util/logger.js";

export interface ShutdownTarget {
  shutdown(): Promise<void>;
  close(): Promise<void>;
}

/** Install handlers; `exit` is injected (tests). Returns an uninstall function. */
export function installShutdownHandlers(
  target: ShutdownTarget,
  logger: Logger,
  exit: (code: number) => void = (code) => process.exit(code),
  signals: NodeJS.Signals[] = ["SIGTERM", "SIGINT"],
): () => void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const code = 128 + (osConstants.signals[signal] ?? 0);
    logger.info({ signal }, "shutting down: canceling runners");
    void Promise.allSettled([target.shutdown()])
      .then(() => Promise.race([target.close(), new Promise((r) => setTimeout(r, 2_000).unref())]))
      .finally(() => exit(code));
  };
  for (const s of signals) process.on(s, handler);
  return () => {
    for (const s of signals) process.off(s, handler);
  };
}
