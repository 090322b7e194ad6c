/**
 * The harness end of the in-sandbox monitor's channel (wrapper-source.ts): a
 * Unix socket in a host directory bound read-only into the sandbox. The
 * harness accepts exactly one connection — the monitor's, made before the
 * program exists — then stops listening and unlinks the path, so nothing
 * started later can connect; the monitor's end is close-on-exec and the
 * monitor is non-dumpable, so the program can neither inherit nor borrow it.
 * What arrives here is therefore the monitor's word: listener requests and
 * decoy exits as they happen, then `done` once the program is over.
 */
import { createServer, type Server, type Socket } from "node:net";
import { rm } from "node:fs/promises";

export interface ReadyEvent {
  event: "ready";
  setup_errors: string[];
  listener: boolean;
  decoys: Record<string, number>;
  interpreter: string;
}

export interface DoneEvent {
  event: "done";
  exit_code: number | null;
  timed_out: boolean;
  elapsed_seconds: number;
  decoys_alive: Record<string, boolean>;
  requests: number;
}

export interface RequestEvent {
  method: string;
  path: string;
  bytes: number;
}

/** Everything the monitor said, in order of arrival. */
export interface MonitorReport {
  connected: boolean;
  ready: ReadyEvent | null;
  /** The harness answered `go`: the program was started (or about to be). */
  went: boolean;
  requests: RequestEvent[];
  /** Decoy name → exit status, for decoys that ended while the program ran. */
  decoyExits: Record<string, number>;
  /** Catchable signals the monitor received (it survives them; reported as tampering). */
  signals: number[];
  programError: string | null;
  done: DoneEvent | null;
  /** Lines that were not the monitor's protocol (should never happen). */
  garbage: number;
}

export interface MonitorChannel {
  /** Resolves when the monitor's connection ends, or at close(). */
  readonly report: Promise<MonitorReport>;
  /** Stop listening, drop the connection, remove the socket. Idempotent. */
  close(): Promise<void>;
}

/** Longest line the monitor ever sends, bytes; anything longer ends the channel. */
const MAX_LINE_BYTES = 64 * 1024;

function emptyReport(): MonitorReport {
  return {
    connected: false,
    ready: null,
    went: false,
    requests: [],
    decoyExits: {},
    signals: [],
    programError: null,
    done: null,
    garbage: 0,
  };
}

/**
 * Record one line of the monitor's protocol in `report`. Returns the answer the monitor
 * is owed (`go` or `abort`, from `decide`) after its first `ready`, otherwise null.
 * Anything that is not the protocol (bad JSON, unknown event, a second `ready`) counts as garbage.
 */
function recordLine(report: MonitorReport, line: string, decide: (ready: ReadyEvent) => boolean): string | null {
  let msg: Record<string, unknown>;
  try {
    msg = JSON.parse(line) as Record<string, unknown>;
  } catch {
    report.garbage++;
    return null;
  }
  switch (msg["event"]) {
    case "ready": {
      if (report.ready) {
        report.garbage++;
        return null;
      }
      report.ready = msg as unknown as ReadyEvent;
      const go = decide(report.ready);
      report.went = go;
      return go ? "go\n" : "abort\n";
    }
    case "request":
      report.requests.push({ method: String(msg["method"]), path: String(msg["path"]), bytes: Number(msg["bytes"]) });
      return null;
    case "decoy_exit":
      report.decoyExits[String(msg["name"])] = Number(msg["returncode"]);
      return null;
    case "signal":
      report.signals.push(Number(msg["signum"]));
      return null;
    case "program_error":
      report.programError = String(msg["error"]);
      return null;
    case "done":
      report.done = msg as unknown as DoneEvent;
      return null;
    default:
      report.garbage++;
      return null;
  }
}

/**
 * Read the monitor's connection line by line into `report`, answering its `ready`; a line
 * longer than MAX_LINE_BYTES counts as garbage and drops the connection. `settle` runs when
 * the connection ends, closes or fails.
 */
function readMonitor(
  sock: Socket,
  report: MonitorReport,
  decide: (ready: ReadyEvent) => boolean,
  settle: () => void,
): void {
  let buf = "";
  sock.setEncoding("utf8");
  sock.on("data", (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const answer = recordLine(report, buf.slice(0, nl), decide);
      if (answer !== null) sock.write(answer);
      buf = buf.slice(nl + 1);
    }
    if (buf.length > MAX_LINE_BYTES) {
      report.garbage++;
      sock.destroy();
    }
  });
  sock.on("end", () => {
    sock.end();
    settle();
  });
  sock.on("close", () => settle());
  sock.on("error", () => settle());
}

function listen(server: Server, socketPath: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * Listen on `socketPath` (its directory must exist). `decide(ready)` says
 * whether to let the program run (`go`) or not (`abort`).
 */
export async function openMonitorChannel(
  socketPath: string,
  decide: (ready: ReadyEvent) => boolean,
): Promise<MonitorChannel> {
  const report = emptyReport();
  let settle!: () => void;
  const ended = new Promise<void>((resolve) => {
    settle = resolve;
  });
  let conn: Socket | null = null;
  const server: Server = createServer({ allowHalfOpen: true });
  server.on("connection", (sock) => {
    if (conn !== null) {
      sock.destroy();
      return;
    }
    conn = sock;
    report.connected = true;
    // One connection only: stop listening and unlink the path before the program can exist.
    server.close();
    void rm(socketPath, { force: true });
    readMonitor(sock, report, decide, settle);
  });
  await listen(server, socketPath);
  let closed = false;
  return {
    report: ended.then(() => report),
    async close() {
      if (closed) return;
      closed = true;
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
      conn?.destroy();
      await rm(socketPath, { force: true });
      settle();
    },
  };
}
