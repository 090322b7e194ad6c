/**
 * `a2a-bench view` arguments, parsed without side effects: the run
 * directories (default `results/`), where to listen, or `--export FILE`.
 */
import { parseUsage } from "../util/parse-usage.js";
import { UsageError } from "../util/errors.js";

/** Loopback: nothing else on the network reaches the viewer unless `--host` says so. */
export const DEFAULT_HOST = "127.0.0.1";
/** Default port of the viewer (0 = any free port). */
export const DEFAULT_PORT = 7575;
/** The directory read when none is named. */
export const DEFAULT_DIR = "results";

export interface ViewArgs {
  /** Run directories, or directories holding runs (searched a few levels down). */
  dirs: string[];
  host: string;
  port: number;
  /** Write one self-contained HTML page here instead of serving. */
  exportFile: string | null;
}

/** Pure parse of `a2a-bench view [DIR…] [--host H] [--port P] [--export FILE]`. */
export function parseViewArgs(argv: string[]): ViewArgs {
  const parsed = parseUsage({
    args: argv,
    allowPositionals: true,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      export: { type: "string" },
    },
  });
  const { host, port, export: exportFile } = parsed.values;
  if (host !== undefined && !/^[A-Za-z0-9.:[\]-]+$/.test(host))
    throw new UsageError(`--host must be a host name or IP address, got "${host}"`);
  let portNumber = DEFAULT_PORT;
  if (port !== undefined) {
    if (!/^\d+$/.test(port) || Number(port) > 65535)
      throw new UsageError(`--port must be an integer from 0 to 65535 (0: any free port), got "${port}"`);
    portNumber = Number(port);
  }
  if (exportFile !== undefined) {
    if (exportFile === "") throw new UsageError("--export needs a FILE.html");
    if (host !== undefined || port !== undefined)
      throw new UsageError("--export writes a file and serves nothing: --host and --port do not apply");
  }
  const dirs = parsed.positionals.length > 0 ? parsed.positionals : [DEFAULT_DIR];
  return {
    dirs,
    host: (host ?? DEFAULT_HOST).replace(/^\[(.*)\]$/, "$1"),
    port: portNumber,
    exportFile: exportFile ?? null,
  };
}
