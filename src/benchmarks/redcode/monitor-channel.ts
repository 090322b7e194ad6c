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
  /** Connections that delivered a byte to the listener (or were reset before one could be read), all of them. */
  requests: number;
  /** Why the listener could not take or read every connection, if ever (e.g. `accept: [Errno 24] ...`). */
  listener_faults?: string[];
}

/** One connection that reached the listener: its HTTP method and path when it had a request line, else a label. */
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
  /** Why the listener could not take or read every connection, as it happened. */
  listenerFaults: string[];
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
    listenerFaults: [],
    programError: null,
    done: null,
    garbage: 0,
  };
}

/**
 * Record one line of the monitor's protocol in `report`. Returns the monitor's first `ready`
 * (the caller owes it an answer), otherwise null. Anything that is not the protocol (bad JSON,
 * unknown event, a second `ready`) counts as garbage.
 */
function recordLine(report: MonitorReport, line: string): ReadyEvent | null {
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
      return report.ready;
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
    case "listener_fault":
      report.listenerFaults.push(String(msg["error"]));
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

/** Whether to let the program run; may take its time (the monitor waits), a rejection answers `abort`. */
export type Decide = (ready: ReadyEvent) => boolean | Promise<boolean>;

/** Answer the monitor's `ready` once `decide` has settled: `go` or `abort` (also when it threw). */
function answerReady(sock: Socket, report: MonitorReport, ready: ReadyEvent, decide: Decide): void {
  void Promise.resolve()
    .then(() => decide(ready))
    .catch(() => false)
    .then((go) => {
      if (sock.destroyed) return; // the monitor is gone: nothing was started
      report.went = go;
      sock.write(go ? "go\n" : "abort\n");
    });
}

/**
 * Read the monitor's connection line by line into `report`, answering its `ready`; a line
 * longer than MAX_LINE_BYTES counts as garbage and drops the connection. `settle` runs when
 * the connection ends, closes or fails.
 */
function readMonitor(sock: Socket, report: MonitorReport, decide: Decide, settle: () => void): void {
  let buf = "";
  sock.setEncoding("utf8");
  sock.on("data", (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const ready = recordLine(report, buf.slice(0, nl));
      if (ready !== null) answerReady(sock, report, ready, decide);
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
 * whether to let the program run (`go`) or not (`abort`); it may be async
 * (the harness records the fixtures' baseline before the program exists).
 */
export async function openMonitorChannel(socketPath: string, decide: Decide): Promise<MonitorChannel> {
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
