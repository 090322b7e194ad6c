/**
 * The e2b backend's `environments` capability (../environment.ts): one E2B
 * sandbox (a microVM) per environment, created from the E2B template the
 * spec's image maps to (`E2bOptions.environmentTemplates`, else the image
 * name itself: E2B builds templates from images, the operator names them),
 * with internet access off and a lifetime (E2B's own sandbox timeout) of the
 * spec's `lifetimeMs`: if this process dies, E2B kills the sandbox when that
 * runs out, so nothing stays billed longer.
 *
 * - spec files go in through envd's files API before the first command;
 * - exec(argv) is one `commands.run` (`bash -l -c` of the argv quoted word by
 *   word, argv-command.ts); stdout and stderr are kept as a tail in arrival
 *   order. The SDK keeps a command's whole output in memory too, so a command
 *   that prints more than OUTPUT_WIRE_FACTOR × the tail is stopped: the
 *   environment ends there (our memory is bounded, the command's tail kept);
 * - a command's timeout, its caller's abort or a broken stream kill the whole
 *   sandbox (envd would keep the command running after the client left): the
 *   environment ends and later calls report `infraError`;
 * - readFile streams the file and stops at READ_FILE_MAX_BYTES or
 *   READ_FILE_TIMEOUT_MS (a link to /dev/zero, a FIFO): an error, never a cut file;
 * - close() kills the sandbox (once; idempotent);
 * - backendProblem() asks E2B's API whether the sandbox still runs, never envd inside the VM (the
 *   code may have stopped envd: its own failure, not the backend's).
 *
 * What E2B isolates: its VM (no host of ours, no network with internet access
 * off). The template decides CPU and memory; `spec.limits` are not applied
 * inside the VM, and the default templates' user has sudo there.
 */
import type { Sandbox as E2bClient } from "@e2b/code-interpreter";
import { posix } from "node:path";
import { SandboxError } from "../errors.js";
import { OutputTail } from "../../process/output-tail.js";
import { followAbort } from "../../util/abort-fan-out.js";
import type { Logger } from "../../util/logger.js";
import {
  ENVIRONMENT_OUTPUT_BYTES,
  type Environment,
  type EnvironmentExecOptions,
  type EnvironmentExecOutcome,
  type EnvironmentSpec,
} from "../environment.js";
import { argvCommand } from "./argv-command.js";
import type { E2bSdk } from "./load-sdk.js";

/** Bytes of a file readFile returns at most (beyond it: an error, never a cut file); docker's figure. */
export const READ_FILE_MAX_BYTES = 16 * 1024 * 1024;
/** Limit of one readFile, ms: the file may be the code's (a FIFO). */
export const READ_FILE_TIMEOUT_MS = 30_000;
/** Limit of one writeFile or spec file upload, ms. */
export const WRITE_FILE_TIMEOUT_MS = 60_000;
/** A command may print this many times its tail over the wire before it is stopped (the SDK holds it all). */
export const OUTPUT_WIRE_FACTOR = 4;
/** Default lifetime of an environment's E2B sandbox, ms: an episode's default 30 min plus setup and grading. */
export const DEFAULT_ENVIRONMENT_LIFETIME_MS = 3_600_000;
/** Limit of the API calls around a command (starting it, health), ms. */
const REQUEST_TIMEOUT_MS = 30_000;

/** What an environment needs of its e2b backend. */
export interface E2bEnvironmentContext {
  sdk: E2bSdk["Sandbox"];
  connection: { apiKey: string; apiUrl?: string; sandboxUrl?: string };
  /** E2B template per image name; an image not listed is its own template name. */
  templates?: Readonly<Record<string, string>>;
  logger: Logger;
  /** Caps of readFile (tests lower them); default READ_FILE_MAX_BYTES / READ_FILE_TIMEOUT_MS. */
  readFileMaxBytes?: number;
  readFileTimeoutMs?: number;
}

type Stop = "timeout" | "canceled" | "output";

class E2bEnvironment implements Environment {
  private ended: string | null = null;
  /** The environment ended because of what a command did (not the backend): backendProblem stays null. */
  private endedByCommand = false;
  private killed: Promise<void> | null = null;

  constructor(
    private readonly client: E2bClient,
    private readonly ctx: E2bEnvironmentContext,
    private readonly lifetimeMs: number,
    private readonly onClose: (e: Environment) => void,
  ) {}

  get id(): string {
    return this.client.sandboxId;
  }

  async exec(argv: readonly string[], o: EnvironmentExecOptions): Promise<EnvironmentExecOutcome> {
    const none = { output: "", exitCode: null, timedOut: false, isCanceled: false, durationMs: 0 };
    if (this.ended !== null) return { ...none, isCanceled: o.signal?.aborted ?? false, infraError: this.ended };
    let cmd: string;
    try {
      cmd = argvCommand(argv);
    } catch (e) {
      return { ...none, infraError: (e as Error).message };
    }
    if (o.signal?.aborted) {
      // Aborted before it started: nothing runs, and the environment ends as on any abort.
      this.ended ??= "the environment ended after a command's cancellation";
      this.endedByCommand = true;
      await this.kill();
      return { ...none, isCanceled: true };
    }
    const cap = o.maxOutputBytes ?? ENVIRONMENT_OUTPUT_BYTES;
    const tail = new OutputTail(cap);
    const t0 = performance.now();
    let stop: (why: Stop) => void = () => {};
    const stopped = new Promise<Stop>((resolve) => (stop = resolve));
    const timer = setTimeout(() => stop("timeout"), o.timeoutMs);
    const unfollow = followAbort(o.signal, () => stop("canceled"));
    const onData = (text: string): void => {
      tail.push(Buffer.from(text));
      if (tail.total > OUTPUT_WIRE_FACTOR * cap) stop("output");
    };
    const done = this.client.commands
      .run(cmd, {
        background: true,
        onStdout: onData,
        onStderr: onData,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        // The stream's own deadline is ours plus a margin: our timer always acts first.
        timeoutMs: o.timeoutMs + REQUEST_TIMEOUT_MS,
      })
      .then((handle) =>
        handle.wait().then(
          (r) => ({ exitCode: r.exitCode }),
          (e: unknown) => {
            // A non-zero exit is CommandExitError carrying the code; anything else is the stream's failure.
            const code = (e as { exitCode?: unknown }).exitCode;
            if (typeof code === "number") return { exitCode: code };
            throw e;
          },
        ),
      );
    done.catch(() => {}); // abandoned when a stop wins the race
    try {
      const got = await Promise.race([done, stopped]);
      const durationMs = Math.round(performance.now() - t0);
      if (typeof got === "object")
        return { output: tail.text(), exitCode: got.exitCode, timedOut: false, isCanceled: false, durationMs };
      this.ended ??=
        got === "output"
          ? `the environment ended: a command printed more than ${OUTPUT_WIRE_FACTOR * cap} bytes, more than the e2b backend carries`
          : `the environment ended after a command's ${got === "timeout" ? "timeout" : "cancellation"}`;
      this.endedByCommand = true;
      // The command goes on in the VM after the client leaves: the sandbox itself is killed.
      await this.kill();
      return {
        output: tail.text(),
        exitCode: null,
        timedOut: got === "timeout",
        isCanceled: got === "canceled",
        durationMs,
      };
    } catch (e) {
      // The stream broke or the command could not start: whether it runs on is unknown, so it is ended.
      const message = `e2b command failed: ${(e as Error).message}`;
      this.ended ??= `the environment ended: ${message}`;
      await this.kill();
      return { ...none, output: tail.text(), durationMs: Math.round(performance.now() - t0), infraError: message };
    } finally {
      clearTimeout(timer);
      unfollow();
    }
  }

  async readFile(path: string): Promise<string> {
    if (this.ended !== null) throw new SandboxError("E_SANDBOX_CLOSED", `readFile(${path}): ${this.ended}`);
    const cap = this.ctx.readFileMaxBytes ?? READ_FILE_MAX_BYTES;
    const limitMs = this.ctx.readFileTimeoutMs ?? READ_FILE_TIMEOUT_MS;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), limitMs);
    try {
      const stream = await this.client.files.read(path, {
        format: "stream",
        requestTimeoutMs: limitMs,
        signal: ac.signal,
      });
      const reader = stream.getReader();
      const chunks: Uint8Array[] = [];
      let n = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        n += value.length;
        if (n > cap) {
          ac.abort();
          await reader.cancel().catch(() => {});
          throw new SandboxError("E_SANDBOX_SETUP", `reading ${path}: larger than ${cap} bytes`);
        }
        chunks.push(value);
      }
      return Buffer.concat(chunks).toString("utf8");
    } catch (e) {
      if (e instanceof SandboxError) throw e;
      if (ac.signal.aborted)
        throw new SandboxError("E_SANDBOX_SETUP", `reading ${path}: no end within ${limitMs / 1000} s`, { cause: e });
      throw new SandboxError("E_SANDBOX_SETUP", `reading ${path}: ${(e as Error).message}`, { cause: e });
    } finally {
      clearTimeout(timer);
    }
  }

  async writeFile(path: string, content: string): Promise<void> {
    if (this.ended !== null) throw new SandboxError("E_SANDBOX_CLOSED", `writeFile(${path}): ${this.ended}`);
    await writeOne(this.client, path, content);
  }

  /**
   * Asks E2B's API (the control plane), not envd inside the VM: code that has sudo there can stop envd,
   * and that must read as its own failure. A sandbox E2B still runs means the backend answers.
   */
  async backendProblem(): Promise<string | null> {
    if (this.endedByCommand) return null;
    try {
      const info = await this.ctx.sdk.getInfo(this.id, {
        ...this.ctx.connection,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
      });
      return info.state === "running" ? null : `the e2b sandbox ${this.id} is ${info.state}, no longer running`;
    } catch (e) {
      if ((e as Error).name === "SandboxNotFoundError")
        return `the e2b sandbox ${this.id} is gone (killed, or its lifetime of ${this.lifetimeMs / 1000} s ran out)`;
      return `e2b did not answer: ${(e as Error).message}`;
    }
  }

  close(): Promise<void> {
    this.ended ??= "the environment is closed";
    this.onClose(this);
    return this.kill();
  }

  /** Kill the E2B sandbox once; a failure is logged (its lifetime ends it anyway). */
  private kill(): Promise<void> {
    this.killed ??= this.client
      .kill({ requestTimeoutMs: REQUEST_TIMEOUT_MS })
      .then(() => undefined)
      .catch((e: Error) =>
        this.ctx.logger.warn(
          { err: e.message, sandbox: this.id },
          "e2b kill failed; the sandbox ends when its lifetime runs out",
        ),
      );
    return this.killed;
  }
}

async function writeOne(client: E2bClient, path: string, content: string): Promise<void> {
  try {
    await client.files.write(path, content, { requestTimeoutMs: WRITE_FILE_TIMEOUT_MS });
  } catch (e) {
    throw new SandboxError("E_SANDBOX_SETUP", `writing ${path}: ${(e as Error).message}`, { cause: e });
  }
}

/** The E2B template an image maps to. */
export function templateFor(image: string, templates: Readonly<Record<string, string>> | undefined): string {
  return templates?.[image] ?? image;
}

/** Create an environment's E2B sandbox and put its files in; rejects E_SANDBOX_UNAVAILABLE (nothing left behind). */
export async function openE2bEnvironment(
  spec: EnvironmentSpec,
  ctx: E2bEnvironmentContext,
  opts: { signal?: AbortSignal; onClose?: (e: Environment) => void } = {},
): Promise<Environment> {
  if (opts.signal?.aborted) throw new SandboxError("E_SANDBOX_UNAVAILABLE", "canceled before the environment started");
  const entries = Object.entries(spec.files?.entries ?? {});
  for (const [name] of entries)
    if (name.includes("/") || name === "." || name === ".." || name === "")
      throw new SandboxError("E_SANDBOX_OPTIONS", `environment files: a plain file name is needed, got ${name}`);
  if (spec.files && !posix.isAbsolute(spec.files.dir))
    throw new SandboxError("E_SANDBOX_OPTIONS", `environment files: dir must be absolute, got ${spec.files.dir}`);
  const lifetimeMs = spec.lifetimeMs ?? DEFAULT_ENVIRONMENT_LIFETIME_MS;
  const template = templateFor(spec.image, ctx.templates);
  let client: E2bClient;
  try {
    client = await ctx.sdk.create(template, {
      ...ctx.connection,
      timeoutMs: lifetimeMs,
      allowInternetAccess: false,
      metadata: { "a2a-bench-owner": spec.owner },
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
  } catch (e) {
    throw new SandboxError(
      "E_SANDBOX_UNAVAILABLE",
      `cannot create the e2b sandbox (template ${template}): ${(e as Error).message}`,
      {
        cause: e,
      },
    );
  }
  try {
    for (const [name, text] of entries) await writeOne(client, posix.join(spec.files!.dir, name), text);
    // An abort during the start is honoured here, once the sandbox exists and can be killed.
    if (opts.signal?.aborted) throw new SandboxError("E_SANDBOX_UNAVAILABLE", "canceled while the environment started");
  } catch (e) {
    await client.kill({ requestTimeoutMs: REQUEST_TIMEOUT_MS }).catch(() => {});
    if (e instanceof SandboxError && e.code === "E_SANDBOX_UNAVAILABLE") throw e;
    throw new SandboxError("E_SANDBOX_UNAVAILABLE", `setting up the e2b sandbox: ${(e as Error).message}`, {
      cause: e,
    });
  }
  return new E2bEnvironment(client, ctx, lifetimeMs, opts.onClose ?? (() => undefined));
}
