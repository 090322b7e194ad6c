/**
 * A port we cannot bind because another process holds it: the error says which
 * process (pid and command line, from /proc: src/process/port-holder.ts) and
 * which flag of ours moves us elsewhere, instead of Node's bare EADDRINUSE.
 */
import { BenchError } from "../../util/errors.js";
import { listeningPids } from "../../process/port-holder.js";
import { procInfo, type ProcInfo } from "../../process/proc-scan.js";

/** Longest command line shown, characters. */
const MAX_COMMAND_CHARS = 120;

export interface HolderReaders {
  listeningPids: (port: number) => number[] | undefined;
  procInfo: (pid: number) => ProcInfo | undefined;
}

const realReaders: HolderReaders = { listeningPids, procInfo };

/** "pid 1234 (node dist/cli.js green --port 9009)", or undefined when /proc does not show the holder. */
export function portHolderText(port: number, readers: HolderReaders = realReaders): string | undefined {
  for (const pid of readers.listeningPids(port) ?? []) {
    const info = readers.procInfo(pid);
    if (!info) continue;
    const cmd = info.cmdline.join(" ");
    return `pid ${pid} (${cmd.length <= MAX_COMMAND_CHARS ? cmd : cmd.slice(0, MAX_COMMAND_CHARS - 1) + "…"})`;
  }
  return undefined;
}

/** The address `host:port` is taken; code E_PORT_IN_USE. */
export class PortInUseError extends BenchError {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly holder: string | undefined,
    readonly flag: string,
  ) {
    const shown = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
    const who = holder
      ? `${shown} is in use by ${holder}`
      : `${shown} is in use by a process this user cannot see (\`ss -ltnp\` as root names it)`;
    super(
      "E_PORT_IN_USE",
      `cannot listen: ${who}; stop it, or move this one with ${flag} <other port> (${flag} 0 picks a free one)`,
    );
  }
}

/** `err` as a PortInUseError when it is Node's EADDRINUSE for `port`; otherwise `err` unchanged. */
export function explainListenError(err: Error, host: string, port: number, flag = "--port"): Error {
  if ((err as NodeJS.ErrnoException).code !== "EADDRINUSE") return err;
  return new PortInUseError(host, port, portHolderText(port), flag);
}
