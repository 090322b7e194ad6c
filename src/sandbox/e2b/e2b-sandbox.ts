/**
 * The E2B backend: one E2B sandbox per Sandbox instance, created up front and
 * killed on close(). Every exec/execMany is ONE `runCode` request carrying a
 * batch driver (see batch-driver.ts), so a benchmark pays at most one request
 * per solution. Note: unlike the local backend, output is capped after the
 * fact (the driver collects it), not by stopping the program.
 */
// Type only: the SDK is an optional dependency, loaded by load-sdk.ts when an e2b sandbox is created.
import type { Sandbox as E2bClient } from "@e2b/code-interpreter";
import type { Logger } from "../../util/logger.js";
import type { ExecOutcome, ExecRequest, Sandbox, SandboxLimits } from "../types.js";
import { SandboxError } from "../errors.js";
import { followAbort } from "../../util/abort-fan-out.js";
import { emptyOutcome } from "../types.js";
import { refusedRequest, type SandboxCapability } from "../capabilities.js";
import { batchDriver, RESULT_MARK, type DriverJob } from "./batch-driver.js";
import { loadE2bSdk, type E2bSdkImporter } from "./load-sdk.js";
import type { Environment, EnvironmentSpec } from "../environment.js";
import { refuseEngineOnly } from "../environment.js";
import { openE2bEnvironment, type E2bEnvironmentContext } from "./e2b-environment.js";
import { availableParallelism } from "node:os";

export interface E2bOptions {
  /** Default: env E2B_API_KEY (required). */
  apiKey?: string;
  /** Default: env E2B_API_URL, else the SDK's (https://api.e2b.app). */
  apiUrl?: string;
  /** Default: env E2B_SANDBOX_URL, else the SDK's. */
  sandboxUrl?: string;
  /** Template; default "code-interpreter-v1" (the SDK's default). */
  template?: string;
  /** Lifetime of the remote sandbox, ms; default 1 hour. */
  sandboxTimeoutMs?: number;
  /**
   * E2B template of each environment image (`openEnvironment`'s `spec.image`); an image not listed is
   * taken as a template name itself. Build the templates from the images with E2B's CLI.
   */
  environmentTemplates?: Record<string, string>;
}

/** Slack added to a batch's own time budget before the request is abandoned (ms). */
const REQUEST_SLACK_MS = 30_000;

class E2bSandbox implements Sandbox {
  readonly backend = "e2b" as const;
  readonly isolation = "e2b" as const;
  readonly warnings: readonly string[] = [];
  /** Environments only: a remote sandbox shows no host file (no host-workdir, binds, overlays, root). */
  readonly capabilities: ReadonlySet<SandboxCapability> = new Set<SandboxCapability>(["environments", "images"]);
  private closed = false;
  /** Environments opened and not closed: close() ends them. */
  private readonly environments = new Set<Environment>();
  constructor(
    private readonly client: E2bClient,
    private readonly limits: SandboxLimits,
    private readonly concurrency: number,
    private readonly logger: Logger,
    private readonly envContext: E2bEnvironmentContext,
  ) {}

  async openEnvironment(spec: EnvironmentSpec, signal?: AbortSignal): Promise<Environment> {
    if (this.closed) throw new SandboxError("E_SANDBOX_CLOSED", "openEnvironment() after close()");
    refuseEngineOnly(spec, "e2b");
    const env = await openE2bEnvironment(spec, this.envContext, {
      ...(signal ? { signal } : {}),
      onClose: (e) => this.environments.delete(e),
    });
    this.environments.add(env);
    return env;
  }

  exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecOutcome> {
    return this.execMany([req], signal).then((r) => r[0]!);
  }

  async execMany(reqs: ExecRequest[], signal?: AbortSignal): Promise<ExecOutcome[]> {
    if (this.closed) throw new SandboxError("E_SANDBOX_CLOSED", "execMany() after close()");
    if (reqs.length === 0) return [];
    // Aborted before anything was sent: nothing runs, and the sandbox stays for the next batch.
    if (signal?.aborted) return reqs.map(() => emptyOutcome({ isCanceled: true }));
    const refused = reqs.map((r) => refusedRequest(this, r)).find((why) => why !== null);
    if (refused) return reqs.map(() => emptyOutcome({ infraError: refused }));
    const jobs: DriverJob[] = reqs.map((r) => ({
      language: r.language,
      code: r.code,
      timeoutMs: r.timeoutMs,
      env: r.env ?? {},
      stdin: r.stdin ?? "",
      files: r.files ?? {},
    }));
    const budget = Math.ceil(reqs.reduce((s, r) => s + r.timeoutMs, 0) / this.concurrency) + REQUEST_SLACK_MS;
    // Followed through the signal's one shared listener, and no longer once the batch is over.
    let unfollow = (): void => {};
    const canceled = new Promise<"canceled">((resolve) => {
      unfollow = followAbort(signal, () => resolve("canceled"));
    });
    try {
      const run = this.client.runCode(batchDriver(jobs, this.concurrency, this.limits.maxOutputBytes), {
        language: "python",
        timeoutMs: budget,
        requestTimeoutMs: budget,
      });
      const got = await Promise.race([run, canceled]);
      if (got === "canceled") {
        // The remote batch cannot be stopped alone; killing the sandbox stops it.
        run.catch(() => {});
        await this.close();
        return reqs.map(() => emptyOutcome({ isCanceled: true }));
      }
      const byIndex = new Map<number, ExecOutcome>();
      for (const line of got.logs.stdout.join("").split("\n")) {
        if (!line.startsWith(RESULT_MARK)) continue;
        const r = JSON.parse(line.slice(RESULT_MARK.length)) as {
          i: number;
          exitCode: number | null;
          signal: string | null;
          timedOut: boolean;
          outputLimitExceeded: boolean;
          stdout: string;
          stderr: string;
          durationMs: number;
          /** The driver could not set the job up (its files); nothing of it ran. */
          setupError?: string;
        };
        if (r.setupError !== undefined) {
          byIndex.set(r.i, emptyOutcome({ infraError: `job setup in the e2b sandbox: ${r.setupError}` }));
          continue;
        }
        byIndex.set(
          r.i,
          emptyOutcome({
            exitCode: r.exitCode,
            signal: r.signal,
            timedOut: r.timedOut,
            outputLimitExceeded: r.outputLimitExceeded,
            durationMs: r.durationMs,
            stdoutTail: r.stdout,
            stderrTail: r.stderr,
          }),
        );
      }
      const driverError = got.error
        ? `batch driver failed: ${got.error.name}: ${got.error.value}: ${got.error.traceback.slice(-300)}`
        : "batch driver returned no result for this job";
      return reqs.map((_, i) => byIndex.get(i) ?? emptyOutcome({ infraError: driverError }));
    } catch (e) {
      this.logger.warn({ err: (e as Error).message }, "e2b runCode failed");
      return reqs.map(() => emptyOutcome({ infraError: `e2b: ${(e as Error).message}` }));
    } finally {
      unfollow();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.environments].map((e) => e.close()));
    await this.client.kill().catch((e: Error) => this.logger.warn({ err: e.message }, "e2b kill failed"));
  }
}

/**
 * Create the remote sandbox. Missing API key → SandboxError E_E2B_API_KEY before any request; SDK not
 * installed → E_E2B_SDK_MISSING (`importSdk` stands in for the import in tests).
 */
export async function createE2bSandbox(o: {
  limits: SandboxLimits;
  logger: Logger;
  concurrency?: number;
  e2b?: E2bOptions;
  importSdk?: E2bSdkImporter;
}): Promise<Sandbox> {
  const apiKey = o.e2b?.apiKey ?? process.env["E2B_API_KEY"];
  if (!apiKey)
    throw new SandboxError("E_E2B_API_KEY", "the e2b sandbox needs an API key: set E2B_API_KEY (or pass e2b.apiKey)");
  const apiUrl = o.e2b?.apiUrl ?? process.env["E2B_API_URL"];
  const sandboxUrl = o.e2b?.sandboxUrl ?? process.env["E2B_SANDBOX_URL"];
  const { Sandbox: E2bClientClass } = await loadE2bSdk(o.importSdk);
  try {
    const client = await E2bClientClass.create(o.e2b?.template ?? "code-interpreter-v1", {
      apiKey,
      ...(apiUrl ? { apiUrl } : {}),
      ...(sandboxUrl ? { sandboxUrl } : {}),
      timeoutMs: o.e2b?.sandboxTimeoutMs ?? 3_600_000,
    });
    const envContext: E2bEnvironmentContext = {
      sdk: E2bClientClass,
      connection: { apiKey, ...(apiUrl ? { apiUrl } : {}), ...(sandboxUrl ? { sandboxUrl } : {}) },
      ...(o.e2b?.environmentTemplates ? { templates: o.e2b.environmentTemplates } : {}),
      logger: o.logger,
    };
    return new E2bSandbox(client, o.limits, o.concurrency ?? availableParallelism(), o.logger, envContext);
  } catch (e) {
    throw new SandboxError("E_E2B", `cannot create the e2b sandbox: ${(e as Error).message}`, { cause: e });
  }
}
