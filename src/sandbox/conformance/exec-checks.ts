/**
 * The conformance checks of `exec`: exit codes, streams, literal data, files,
 * limits, timeout, cancellation, network, and what `close()` leaves behind.
 */
import { createServer, type AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { createHash } from "node:crypto";
import type { ExecOutcome, ExecRequest, Sandbox } from "../types.js";
import { newMarker, waitForCount, type ProcessObserver } from "./observe.js";
import { claims, type Check, type CheckContext, type CheckOutcome, type OwnCheck } from "./types.js";

/** How long processes may take to disappear once their job ended, ms (a loaded host; polled, not slept). */
export const VANISH_MS = 120_000;
/** How long a job may take to start on a loaded host before a check gives up waiting for it, ms. */
export const START_MS = 120_000;
/** Wall limit of a job that should finish at once (a loaded host's python start-up, an engine round trip). */
const QUICK_MS = 120_000;

const py = (code: string, extra: Partial<ExecRequest> = {}): ExecRequest => ({
  language: "python",
  code,
  timeoutMs: QUICK_MS,
  ...extra,
});
const sh = (code: string, extra: Partial<ExecRequest> = {}): ExecRequest => ({
  language: "bash",
  code,
  timeoutMs: QUICK_MS,
  ...extra,
});

/** The outcome in one line, for a failure's detail. */
function seen(o: ExecOutcome): string {
  return JSON.stringify({
    exitCode: o.exitCode,
    signal: o.signal,
    timedOut: o.timedOut,
    isCanceled: o.isCanceled,
    outputLimitExceeded: o.outputLimitExceeded,
    infraError: o.infraError,
    stdout: o.stdoutTail.slice(-300),
    stderr: o.stderrTail.slice(-300),
  });
}

/** Null when every process holding one of `markers` is gone within VANISH_MS, else what is left. */
async function vanished(observer: ProcessObserver, markers: readonly string[]): Promise<string | null> {
  for (const m of markers) {
    const n = await waitForCount(observer, m, (c) => c === 0, VANISH_MS);
    if (n > 0) return `${n} process(es) of "sleep ${m}" still run ${VANISH_MS / 1000} s after their job ended`;
  }
  return null;
}

/** Null when the backend's resources are all released within VANISH_MS, else what remains. */
async function released(ctx: CheckContext): Promise<string | null> {
  if (ctx.resources === null) return null;
  const deadline = Date.now() + VANISH_MS;
  for (;;) {
    const left = await ctx.resources();
    if (left.length === 0) return null;
    if (Date.now() > deadline) return `still held after close: ${left.join(", ")}`;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const exitCodes: Check = async (_ctx, sb) => {
  const cases: Array<[ExecRequest, number]> = [
    [py("import sys; sys.exit(3)"), 3],
    [sh("exit 0"), 0],
    [sh("false"), 1],
    [py("raise ValueError('conformance')"), 1],
  ];
  for (const [req, code] of cases) {
    const o = await sb.exec(req);
    if (o.exitCode !== code || o.infraError !== undefined || o.timedOut)
      return `${req.language} ${JSON.stringify(req.code)} should exit ${code}: ${seen(o)}`;
  }
  return null;
};

const streams: Check = async (_ctx, sb) => {
  const key = "A2A_CONFORMANCE_HOST_ONLY";
  const saved = process.env[key];
  process.env[key] = "host-secret";
  try {
    const o = await sb.exec(
      py(
        "import os, sys\ndata = sys.stdin.read()\nprint('out:' + data + ':' + os.environ['GIVEN'])\n" +
          `print('err:' + repr(os.environ.get('${key}')), file=sys.stderr)`,
        { stdin: "from stdin", env: { GIVEN: "given value" } },
      ),
    );
    if (o.exitCode !== 0) return `the program failed: ${seen(o)}`;
    if (o.stdoutTail !== "out:from stdin:given value\n") return `stdout is not the program's stdout alone: ${seen(o)}`;
    if (o.stderrTail.trim() !== "err:None")
      return `stderr should be "err:None" (no host variable inherited): ${seen(o)}`;
    return null;
  } finally {
    if (saved === undefined) delete process.env[key];
    else process.env[key] = saved;
  }
};

/** Text a shell would change in every way it can, if one saw it. */
const SHELL_BAIT = "$(echo pwned) `id` $HOME ${PATH} 'single' \"double\" \\back * ? ; | & > < ~ é 漢\n\ttab";

const literal: Check = async (_ctx, sb) => {
  const o = await sb.exec(
    py(
      "import os, sys, json\n" +
        "print(json.dumps([open('bait.txt', encoding='utf-8').read(), os.environ['BAIT'], sys.stdin.read()]))",
      { files: { "bait.txt": SHELL_BAIT }, env: { BAIT: SHELL_BAIT }, stdin: SHELL_BAIT },
    ),
  );
  if (o.exitCode !== 0) return `the program failed: ${seen(o)}`;
  let got: unknown;
  try {
    got = JSON.parse(o.stdoutTail);
  } catch {
    return `not the program's JSON: ${seen(o)}`;
  }
  const want = [SHELL_BAIT, SHELL_BAIT, SHELL_BAIT];
  if (JSON.stringify(got) !== JSON.stringify(want))
    return `file, env or stdin changed on the way (a shell saw them?): got ${JSON.stringify(got)}`;
  // A bash program is its text, run as written: the bait stays inside a quoted here-document.
  const b = await sb.exec(sh(`cat <<'EOF'\n${SHELL_BAIT}\nEOF`));
  if (b.stdoutTail !== SHELL_BAIT + "\n") return `a bash program's text was changed: ${seen(b)}`;
  return null;
};

const filesIn: Check = async (_ctx, sb) => {
  const big = "0123456789abcdef".repeat(16 * 1024); // 256 KiB
  const files = { "a.txt": "first\n", "sub/dir/b.txt": "nested é\n", "big.bin": big };
  const digest = createHash("sha256").update(big).digest("hex");
  const o = await sb.exec(
    py(
      "import hashlib\n" +
        "print(open('a.txt').read(), end='')\n" +
        "print(open('sub/dir/b.txt', encoding='utf-8').read(), end='')\n" +
        "print(hashlib.sha256(open('big.bin','rb').read()).hexdigest())",
      { files },
    ),
  );
  if (o.stdoutTail !== `first\nnested é\n${digest}\n`) return `the files are not in place as given: ${seen(o)}`;
  // Each job starts from its own files: the previous job's are not there.
  const next = await sb.exec(py("import os; print(os.path.exists('a.txt'))"));
  if (next.stdoutTail !== "False\n") return `a job sees the files of the job before it: ${seen(next)}`;
  return null;
};

const outputCap: Check = async (ctx, sb) => {
  const cap = ctx.limits.maxOutputBytes;
  const o = await sb.exec(py(`import sys\nfor _ in range(64): sys.stdout.write('x' * ${cap})\nsys.stdout.flush()`));
  if (!o.outputLimitExceeded) return `${64 * cap} bytes of output did not exceed the ${cap}-byte cap: ${seen(o)}`;
  if (o.stdoutTail.length > cap) return `kept ${o.stdoutTail.length} bytes of stdout, past the ${cap}-byte cap`;
  if (o.infraError !== undefined) return `the cap was reported as the backend's failure: ${seen(o)}`;
  return null;
};

const memory: Check = async (ctx, sb) => {
  const na = claims(ctx, sb, "memory-limit");
  if (na) return na;
  const mib = ctx.limits.memoryBytes / (1024 * 1024);
  const small = await sb.exec(py("b = bytearray(16 * 1024 * 1024); print('allocated')"));
  if (small.stdoutTail !== "allocated\n") return `16 MiB should fit under ${mib} MiB: ${seen(small)}`;
  const o = await sb.exec(
    py(`b = bytearray(${2 * ctx.limits.memoryBytes}); b[::4096] = b'x' * len(b[::4096]); print('allocated')`),
  );
  if (o.stdoutTail.includes("allocated")) return `${2 * mib} MiB were allocated under a ${mib} MiB limit`;
  if (o.exitCode === 0 || o.infraError !== undefined || o.timedOut)
    return `the program should fail on its own (MemoryError or killed): ${seen(o)}`;
  return null;
};

const processes: Check = async (ctx, sb) => {
  const na = claims(ctx, sb, "process-limit");
  if (na) return na;
  const max = ctx.limits.maxProcesses;
  const tries = max * 8;
  const o = await sb.exec(
    py(
      "import os, signal, time\nkids = []\n" +
        `for _ in range(${tries}):\n` +
        "    try:\n        pid = os.fork()\n    except OSError:\n        break\n" +
        "    if pid == 0:\n        time.sleep(600)\n        os._exit(0)\n    kids.append(pid)\n" +
        "for k in kids: os.kill(k, signal.SIGKILL)\nfor k in kids: os.waitpid(k, 0)\nprint(len(kids))",
    ),
  );
  const forked = Number(o.stdoutTail.trim());
  if (o.exitCode !== 0 || !Number.isInteger(forked)) return `the fork program failed: ${seen(o)}`;
  if (forked >= max) return `${forked} processes forked beside the program under a limit of ${max}`;
  return null;
};

/**
 * Run `req` (which starts `sleep marker`) while watching for the marker; returns its outcome and whether
 * the marker was seen while it ran.
 */
async function watched(
  sb: Sandbox,
  req: ExecRequest,
  observer: ProcessObserver,
  marker: string,
  signal?: AbortSignal,
): Promise<{ outcome: ExecOutcome; seen: boolean }> {
  const run = sb.exec(req, signal);
  const n = await waitForCount(observer, marker, (c) => c > 0, START_MS, run);
  return { outcome: await run, seen: n > 0 };
}

const timeoutGroup: Check = async (ctx, sb) => {
  const [a, b, c] = [newMarker(), newMarker(), newMarker()];
  // A background child in the job's group, one in a session of its own, and the foreground: all must end.
  const code = `sleep ${a} &\nsetsid sleep ${b} &\nsleep ${c}\n`;
  if (ctx.observer === null) {
    const o = await sb.exec(sh(code, { timeoutMs: 5_000 }));
    if (!o.timedOut) return `the job was not stopped at its deadline: ${seen(o)}`;
    return { na: "the job timed out as it should, but its processes cannot be seen from here" };
  }
  // The deadline must pass after the job started: a loaded host gets a longer one, up to three times.
  for (const timeoutMs of [10_000, 30_000, 90_000]) {
    const { outcome, seen: started } = await watched(sb, sh(code, { timeoutMs }), ctx.observer, c);
    if (!outcome.timedOut) return `the job was not stopped at its ${timeoutMs} ms deadline: ${seen(outcome)}`;
    if (outcome.exitCode !== null && outcome.exitCode === 0) return `a timed-out job reported exit 0: ${seen(outcome)}`;
    const left = await vanished(ctx.observer, [a, b, c]);
    if (left !== null) return left;
    if (started) return null;
  }
  return "the job never started before its deadline (90 s at most): nothing was checked";
};

/** On a sandbox of its own: a backend may end a whole sandbox to stop one job (the e2b one does). */
const cancel: OwnCheck = async (ctx) => {
  if (ctx.observer === null) return { na: "the job's processes cannot be seen from here" };
  const sb = await ctx.create();
  try {
    return await cancelOn(ctx.observer, sb);
  } finally {
    await sb.close();
  }
};

async function cancelOn(observer: ProcessObserver, sb: Sandbox): Promise<CheckOutcome> {
  // Aborted before its turn: it does not start.
  const before = new AbortController();
  before.abort();
  const early = newMarker();
  const o0 = await sb.exec(sh(`sleep ${early}`, { timeoutMs: 600_000 }), before.signal);
  if (!o0.isCanceled) return `a job aborted before it started is not reported canceled: ${seen(o0)}`;
  // Aborted while it runs (a backend may end the whole sandbox to stop it: this is the sandbox's last job).
  const m = newMarker();
  const ac = new AbortController();
  const run = sb.exec(sh(`sleep ${m}`, { timeoutMs: 600_000 }), ac.signal);
  const n = await waitForCount(observer, m, (c) => c > 0, START_MS, run);
  ac.abort();
  const o = await run;
  if (n === 0) return `the job did not start within ${START_MS / 1000} s: ${seen(o)}`;
  if (!o.isCanceled) return `an aborted job is not reported canceled: ${seen(o)}`;
  return vanished(observer, [early, m]);
}

const network: Check = async (ctx, sb) => {
  const na = claims(ctx, sb, "no-network");
  if (na) return na;
  const server = createServer((s) => {
    accepted++;
    s.destroy();
  });
  let accepted = 0;
  await new Promise<void>((r) => server.listen(0, "0.0.0.0", r));
  const port = (server.address() as AddressInfo).port;
  const targets = [
    ...Object.values(networkInterfaces())
      .flat()
      .filter((i) => i !== undefined && i.family === "IPv4")
      .map((i) => [i.address, port] as const),
    ["1.1.1.1", 53] as const,
    ["8.8.8.8", 443] as const,
  ];
  try {
    const o = await sb.exec(
      py(
        "import socket, json\nreached = []\n" +
          `for host, port in ${JSON.stringify(targets)}:\n` +
          "    try:\n        socket.create_connection((host, port), timeout=10).close()\n        reached.append(f'{host}:{port}')\n" +
          "    except OSError:\n        pass\n" +
          "try:\n    socket.getaddrinfo('example.com', 443)\n    reached.append('dns:example.com')\nexcept OSError:\n    pass\n" +
          "print(json.dumps(reached))",
      ),
    );
    if (o.exitCode !== 0) return `the network probe failed: ${seen(o)}`;
    if (o.stdoutTail.trim() !== "[]") return `the job reached ${o.stdoutTail.trim()}`;
    if (accepted > 0) return `a listener on this host accepted ${accepted} connection(s) from the job`;
    return null;
  } finally {
    server.close();
  }
};

/** close() ends what runs and what a job left behind, releases the backend's resources, and refuses later use. */
const cleanupClose: OwnCheck = async (ctx) => {
  if (ctx.observer === null && ctx.resources === null)
    return { na: "neither the backend's processes nor its resources can be seen from here" };
  const sb = await ctx.create();
  const [left, running] = [newMarker(), newMarker()];
  let outcome: CheckOutcome = null;
  try {
    const daemon = await sb.exec(sh(`setsid sleep ${left} >/dev/null 2>&1 < /dev/null &\necho started`));
    if (daemon.stdoutTail !== "started\n") return `the job leaving a process behind failed: ${seen(daemon)}`;
    const run = sb.exec(sh(`sleep ${running}`, { timeoutMs: 600_000 }));
    if (ctx.observer !== null) {
      const n = await waitForCount(ctx.observer, running, (c) => c > 0, START_MS, run);
      if (n === 0) outcome = `the long job did not start within ${START_MS / 1000} s`;
    }
    await sb.close();
    const o = await run;
    if (o.exitCode === 0) outcome ??= `a job running at close() reported success: ${seen(o)}`;
  } finally {
    await sb.close();
  }
  if (outcome !== null) return outcome;
  if (ctx.observer !== null) {
    const still = await vanished(ctx.observer, [left, running]);
    if (still !== null) return still;
  }
  const held = await released(ctx);
  if (held !== null) return held;
  try {
    const after = await sb.exec(sh("echo ran"));
    if (after.stdoutTail.includes("ran")) return "exec() after close() ran a program";
  } catch {
    // refused: as it should
  }
  return null;
};

export const EXEC_CHECKS = {
  "exec.exit-codes": exitCodes,
  "exec.streams": streams,
  "exec.literal": literal,
  "files.in": filesIn,
  "limits.output": outputCap,
  "limits.memory": memory,
  "limits.processes": processes,
  "timeout.process-group": timeoutGroup,
  "network.none": network,
} satisfies Record<string, Check>;

export const EXEC_OWN_CHECKS = { cancel, "cleanup.close": cleanupClose } satisfies Record<string, OwnCheck>;

export { released, vanished };
