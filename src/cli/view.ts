/**
 * `a2a-bench view [DIR…]`: a browser viewer over run directories (default
 * `results/`). Parses (pure, src/view/args.ts), then either writes a
 * self-contained page (`--export FILE.html`) or listens on loopback and
 * prints the URL — it opens nothing by itself. Serves until SIGINT/SIGTERM.
 */
import { createServer } from "node:http";
import { stat } from "node:fs/promises";
import { hostname } from "node:os";
import type { AddressInfo } from "node:net";
import type { CliCommand, CliIo } from "./types.js";
import { explainListenError } from "../a2a/server/port-in-use.js";
import { parseViewArgs } from "../view/args.js";
import { LOOPBACK_HOSTS, createViewApp, hostPolicy } from "../view/app.js";
import { writeExport } from "../view/export-page.js";
import { UsageError } from "../util/errors.js";

const USAGE = `Usage: a2a-bench view [DIR…] [--host H] [--port P]
       a2a-bench view --export FILE.html [DIR…]

Browse benchmark runs in a web browser: the runs, a leaderboard across them
(by participant and benchmark, each benchmark's headline with its 95 % interval),
one run's items (sortable, filterable, with pass@k, failure modes and time per
item as charts), one item (what was asked and answered, the verdict, the test
output, the final diff, a trajectory), and two runs side by side. DIR is a run directory or a directory holding runs
(searched a few levels down); default results/. Files are read as they are on
every request, so a run still being written can be watched.

Options:
  --host H         address to listen on (default 127.0.0.1: this machine only)
  --port P         port (default 7575; 0 picks a free one); the URL is printed
  --export FILE    write one self-contained HTML page of the runs (for a CI
                   artifact) and exit; nothing is served
Exit: 0 stopped by SIGINT/SIGTERM or export written, 1 cannot listen or write, 2 usage error.
`;

async function assertDirs(dirs: readonly string[]): Promise<void> {
  for (const d of dirs) {
    const st = await stat(d).catch(() => null);
    if (!st?.isDirectory())
      throw new UsageError(`${d} is not a directory (give run directories or a results/ directory)`);
  }
}

export async function viewCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseViewArgs(argv);
  await assertDirs(args.dirs);
  if (args.exportFile !== null) {
    const runs = await writeExport(args.dirs, args.exportFile);
    io.stdout.write(`wrote ${args.exportFile} (${runs} run${runs === 1 ? "" : "s"})\n`);
    return 0;
  }
  const loopback = LOOPBACK_HOSTS.includes(args.host);
  // Beyond loopback: IP addresses and this machine's name (never a foreign DNS name: rebinding).
  const server = createServer(createViewApp({ dirs: args.dirs, ...hostPolicy(args.host, hostname()) }));
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err) => reject(explainListenError(err, args.host, args.port)));
    server.listen(args.port, args.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const shown = args.host.includes(":") ? `[${args.host}]` : args.host;
  io.stdout.write(`a2a-bench view: http://${shown}:${port}/ (${args.dirs.join(", ")}); Ctrl-C stops\n`);
  if (!loopback)
    io.stderr.write(`a2a-bench view: listening on ${args.host}: anyone who reaches it can read these runs\n`);
  return new Promise<number>((resolve) => {
    const stop = (): void => {
      process.removeListener("SIGINT", stop);
      process.removeListener("SIGTERM", stop);
      server.closeAllConnections();
      server.close(() => resolve(0));
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

export const command: CliCommand = {
  name: "view",
  summary: "browse run directories (results/) in a web browser, or export them as one HTML page",
  usage: USAGE,
  run: viewCommand,
};
