/**
 * The stand-in's model of envd, the agent inside each E2B sandbox, for the
 * routes an environment uses: `POST /process.Process/Start` (Connect
 * server-streaming, JSON codec, as the SDK's `commands.run` speaks it:
 * `{process: {cmd, args, envs, cwd}}` in, `{event: {start | data | end}}`
 * envelopes out, stdout/stderr base64) and the files API (`GET /files?path=`
 * streams the file, `POST /files?path=` takes a multipart upload and answers
 * `[{name, type, path}]`).
 *
 * Each stand-in sandbox owns one host directory (its tree, mode 0700 under a
 * root of mode 0700), mounted at /home/user (E2B's user's home, where its
 * commands start) in every job; every command AND every file access runs
 * through the executor (the local sandbox), so a symlink the code planted
 * resolves inside the jail, never in this (root) process. At the local
 * sandbox's bwrap isolation a job sees no other tree: that is what keeps two
 * environments apart here, and the stand-in refuses environments on any
 * weaker executor. A relative path is the home's, as envd's; an absolute one
 * is as the job sees it. Only /home/user persists across commands here (the
 * rest is the executor's read-only host view and a private /tmp per job).
 *
 * What the real envd does and this does not: processes outlive their command
 * there (one VM), here each command is one executor job and what it left
 * running ends with it; output is streamed live there, here sent at the end;
 * files are read with the executor's output cap (an endless file ends the
 * response early, as a dropped connection).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Sandbox } from "../types.js";

/** Bytes of one upload the stand-in accepts (beyond it: 413). */
export const STAND_IN_UPLOAD_MAX_BYTES = 64 * 1024 * 1024;

/** Where a stand-in sandbox's tree is mounted, as E2B's user's home: the one path that persists here. */
export const STAND_IN_HOME = "/home/user";

/** One stand-in sandbox's envd state. */
export interface EnvdSandbox {
  /** Host directory of its file system (commands start in it). */
  tree: string;
  /** Aborted when the sandbox is killed (DELETE, its timeout, the server's close): its jobs stop. */
  killed: AbortController;
  /** When its lifetime ends (ms since the epoch). */
  deadline: number;
}

/** Connect envelope: 1 byte flags, 4 bytes big-endian length, the message. */
function envelope(flags: number, message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message));
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** Connect's end-of-stream flag. */
const END_STREAM = 0x02;

async function readBody(req: IncomingMessage, cap: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req) {
    n += (c as Buffer).length;
    if (n > cap) return null;
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

function jsonReply(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
}

/** An AbortSignal that fires when the sandbox is killed or the client goes away. */
function jobSignal(sb: EnvdSandbox, res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  return AbortSignal.any([sb.killed.signal, gone.signal]);
}

/** `POST /process.Process/Start`: run `cmd args` as one executor job in the sandbox's tree. */
export async function processStartRoute(
  executor: Sandbox,
  sb: EnvdSandbox,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const raw = await readBody(req, 1024 * 1024);
  if (raw === null || raw.length < 5 || raw.readUInt32BE(1) !== raw.length - 5)
    return jsonReply(res, 400, { code: "invalid_argument", message: "expected one Connect envelope" });
  const start = JSON.parse(raw.subarray(5).toString("utf8")) as {
    process?: { cmd?: string; args?: string[]; envs?: Record<string, string>; cwd?: string };
  };
  const p = start.process ?? {};
  // The SDK's commands.run always starts `/bin/bash -l -c <command>`.
  const args = p.args ?? [];
  if (p.cmd !== "/bin/bash" || args.length !== 3 || args[0] !== "-l" || args[1] !== "-c" || typeof args[2] !== "string")
    return jsonReply(res, 400, {
      code: "invalid_argument",
      message: "the stand-in runs `/bin/bash -l -c <command>` only",
    });
  const signal = jobSignal(sb, res);
  res.writeHead(200, { "content-type": "application/connect+json" });
  res.write(envelope(0, { event: { start: { pid: 1 } } }));
  // The command and its directory travel in the job's environment, never spliced into the script.
  // Its limit is what is left of the sandbox's lifetime (the client ends it sooner).
  const out = await executor.exec(
    {
      language: "bash",
      code: [
        "cmd=$A2A_STANDIN_CMD; cwd=${A2A_STANDIN_CWD:-$HOME}",
        "unset A2A_STANDIN_CMD A2A_STANDIN_CWD",
        'cd -- "$cwd" && exec /bin/bash -l -c "$cmd"',
      ].join("\n"),
      timeoutMs: Math.max(1, sb.deadline - Date.now()),
      binds: [{ host: sb.tree, target: STAND_IN_HOME, writable: true }],
      env: {
        HOME: STAND_IN_HOME,
        ...(p.envs ?? {}),
        A2A_STANDIN_CMD: args[2],
        ...(p.cwd ? { A2A_STANDIN_CWD: p.cwd } : {}),
      },
    },
    signal,
  );
  if (signal.aborted) return void res.end();
  if (out.infraError !== undefined) {
    res.end(envelope(END_STREAM, { error: { code: "internal", message: out.infraError } }));
    return;
  }
  if (out.stdoutTail)
    res.write(envelope(0, { event: { data: { stdout: Buffer.from(out.stdoutTail).toString("base64") } } }));
  if (out.stderrTail)
    res.write(envelope(0, { event: { data: { stderr: Buffer.from(out.stderrTail).toString("base64") } } }));
  const exitCode = out.exitCode ?? -1;
  res.write(
    envelope(0, {
      event: {
        end: {
          exitCode,
          exited: out.exitCode !== null,
          status: out.exitCode !== null ? `exit status ${exitCode}` : `signal: ${out.signal ?? "killed"}`,
        },
      },
    }),
  );
  res.end(envelope(END_STREAM, {}));
}

/** `GET /files?path=`: the file's bytes, read by `cat` inside the sandbox (404 with its message when it fails). */
export async function readFileRoute(
  executor: Sandbox,
  sb: EnvdSandbox,
  path: string,
  res: ServerResponse,
): Promise<void> {
  const signal = jobSignal(sb, res);
  const out = await executor.exec(
    {
      language: "bash",
      code: 'cd -- "$HOME" && exec cat -- "$A2A_STANDIN_PATH"',
      timeoutMs: Math.max(1, sb.deadline - Date.now()),
      binds: [{ host: sb.tree, target: STAND_IN_HOME, writable: true }],
      env: { HOME: STAND_IN_HOME, A2A_STANDIN_PATH: path },
    },
    signal,
  );
  if (signal.aborted) return void res.end();
  if (out.infraError !== undefined) return jsonReply(res, 500, { code: 500, message: out.infraError });
  if (out.outputLimitExceeded) {
    // More than the executor keeps (an endless file): the response breaks off, as a dropped connection.
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.write(Buffer.alloc(1));
    res.destroy();
    return;
  }
  if (out.exitCode !== 0)
    return jsonReply(res, 404, { code: 404, message: out.stderrTail.trim() || `cannot read ${path}` });
  const bytes = Buffer.from(out.stdoutTail);
  res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length }).end(bytes);
}

/** `POST /files?path=` (multipart, one part per file): each written by `cat` inside the sandbox, parents made. */
export async function writeFileRoute(
  executor: Sandbox,
  sb: EnvdSandbox,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const raw = await readBody(req, STAND_IN_UPLOAD_MAX_BYTES);
  if (raw === null) return jsonReply(res, 413, { code: 413, message: "upload too large for the stand-in" });
  const form = await new Response(raw, { headers: { "content-type": String(req.headers["content-type"] ?? "") } })
    .formData()
    .catch(() => null);
  const files = form?.getAll("file").flatMap((f) => (typeof f === "string" ? [] : [f])) ?? [];
  if (files.length === 0) return jsonReply(res, 400, { code: 400, message: "expected a multipart upload named file" });
  const written: Array<{ name: string; type: string; path: string }> = [];
  for (const f of files) {
    const target = path || f.name;
    const out = await executor.exec(
      {
        language: "bash",
        code: 'p=$A2A_STANDIN_PATH; cd -- "$HOME" && mkdir -p -- "$(dirname -- "$p")" && cat > "$p"',
        timeoutMs: Math.max(1, sb.deadline - Date.now()),
        binds: [{ host: sb.tree, target: STAND_IN_HOME, writable: true }],
        env: { HOME: STAND_IN_HOME, A2A_STANDIN_PATH: target },
        stdin: await f.text(),
      },
      sb.killed.signal,
    );
    if (out.infraError !== undefined) return jsonReply(res, 500, { code: 500, message: out.infraError });
    if (out.exitCode !== 0)
      return jsonReply(res, 400, { code: 400, message: out.stderrTail.trim() || `cannot write ${target}` });
    written.push({ name: target.split("/").pop() ?? target, type: "file", path: target });
  }
  jsonReply(res, 200, written);
}
