/**
 * Run one SPARC test case in the sandbox in its language and judge it from
 * outside (pass-rule.ts): the stdout the sandbox captured and the exit status
 * the kernel reported. python → python3; javascript → node (CommonJS);
 * typescript → transpiled to CommonJS, then node. Installed packages are
 * exposed through NODE_PATH / PYTHONPATH, read-only. No pass proof is asked
 * of the sandbox: nothing runs beside the program on our behalf.
 */
import {
  emptyOutcome,
  type ExecOutcome,
  type ExecRequest,
  type Sandbox,
  type SandboxLanguage,
} from "../../sandbox/types.js";
import { assertNever, errorMessage } from "../../util/errors.js";
import type { SparcBenchmarkType, SparcLanguage, SparcTestCase } from "./config.js";
import { planDefaultTimeoutMs } from "./config.js";
import { endedCleanly, planPasses } from "./pass-rule.js";
import type { SparcRow, SparcStatus } from "./row.js";
import { transpileTypeScript } from "./transpile.js";
import { InfrastructureError } from "../../util/infrastructure-error.js";
import { SandboxCapabilityError } from "../../sandbox/capabilities.js";
import { limitBreach } from "./limit-breach.js";
import type { InstalledPackages } from "./packages/install.js";

/** Where package sets appear inside a bwrap sandbox (read-only). */
export const PACKAGE_MOUNT: Readonly<Record<"python" | "javascript", string>> = {
  javascript: "/tmp/a2a-bench-node_modules",
  python: "/tmp/a2a-bench-python-site",
};

/** Characters of stderr kept in a row's `error`. */
const ERROR_TAIL_CHARS = 2_000;

/** What a case needs besides itself. */
export interface CaseContext {
  type: SparcBenchmarkType;
  name: string;
  sandbox: Sandbox;
  /** Installed package sets by language (javascript also serves typescript). */
  packages: Partial<Record<"python" | "javascript", InstalledPackages>>;
  signal?: AbortSignal;
}

function sandboxLanguage(lang: SparcLanguage): SandboxLanguage {
  switch (lang) {
    case "python":
      return "python";
    case "javascript":
    case "typescript":
      return "node";
    default:
      return assertNever(lang, "language");
  }
}

function packagesFor(lang: SparcLanguage, ctx: CaseContext): InstalledPackages | undefined {
  return lang === "python" ? ctx.packages.python : ctx.packages.javascript;
}

/** The sandbox request for one case (exported for tests and other callers). */
export async function buildExecRequest(tc: SparcTestCase, ctx: CaseContext): Promise<ExecRequest> {
  const language = tc.language ?? "python";
  const code = language === "typescript" ? await transpileTypeScript(tc.input, `${tc.id}.ts`) : tc.input;
  const pkgs = packagesFor(language, ctx);
  const req: ExecRequest = {
    language: sandboxLanguage(language),
    code,
    timeoutMs: tc.timeout ?? planDefaultTimeoutMs(ctx.type),
  };
  if (pkgs) {
    if (ctx.sandbox.capabilities.has("host-binds")) {
      // Bound read-only at a fixed one-level path under the sandbox's own /tmp: mount points that bwrap
      // has to create deeper inside its tmpfs come out root-only (0700) and the unprivileged program
      // could not traverse them; /tmp itself is world-traversable.
      const target = PACKAGE_MOUNT[pkgs.language];
      req.binds = [{ host: pkgs.dir, target, writable: false }];
      req.env = { [pkgs.language === "python" ? "PYTHONPATH" : "NODE_PATH"]: target };
    } else if (ctx.sandbox.capabilities.has("host-workdir")) {
      // The local backend below bwrap shows the host file system as it is (and refuses binds): point at
      // the cache directly; the program runs as another uid and cannot write to the root-owned set.
      req.env = { ...pkgs.env };
    } else {
      // A backend that shows no host directory (docker, e2b) would run the program without its packages.
      throw new SandboxCapabilityError(
        ctx.sandbox.backend,
        "host-binds",
        "sparc",
        "SPARC package installs need the local sandbox (sandbox: local): the packages are installed on this host",
      );
    }
  }
  return req;
}

/** Why the program did not end cleanly, or undefined when it exited 0 on its own. */
function errorText(o: ExecOutcome, timeoutMs: number): string | undefined {
  if (o.timedOut) return `timed out after ${timeoutMs} ms`;
  if (o.outputLimitExceeded) return "stopped: output limit exceeded";
  if (o.isCanceled) return "canceled: the run was interrupted";
  if (o.exitCode === 0 && o.signal === null) return undefined;
  const tail = o.stderrTail.trim().slice(-ERROR_TAIL_CHARS);
  const status = o.signal ? `killed by ${o.signal}` : `exit code ${String(o.exitCode)}`;
  return tail ? `${status}: ${tail}` : status;
}

/** The row's status: passed, else timeout (ours), else error (any other unclean end), else failed (wrong output). */
function statusOf(passed: boolean, o: ExecOutcome, error: string | undefined): SparcStatus {
  if (passed) return "passed";
  if (o.timedOut) return "timeout";
  if (error !== undefined) return "error";
  return "failed";
}

/** Classify a sandbox outcome into a row (pure; exported for tests). See pass-rule.ts for the rule. */
export function judgeOutcome(tc: SparcTestCase, o: ExecOutcome, ctx: Pick<CaseContext, "type" | "name">): SparcRow {
  const language = tc.language ?? "python";
  const timeoutMs = tc.timeout ?? planDefaultTimeoutMs(ctx.type);
  const base = {
    id: tc.id,
    language,
    benchmark_type: ctx.type,
    benchmark_name: ctx.name,
    execution_ms: Math.round(o.durationMs * 1000) / 1000,
    elapsed_seconds: o.durationMs / 1000,
    timeout_ms: timeoutMs,
    output: o.stdoutTail,
    exit_code: o.exitCode,
    signal: o.signal,
  };
  if (o.infraError !== undefined || o.isCanceled) {
    // Our side failed or stopped the case: never a score.
    return {
      ...base,
      status: "skipped",
      passed: false,
      limit_breach: false,
      failure_mode: o.infraError !== undefined ? "infrastructure_sandbox" : "infrastructure_canceled",
      error: o.infraError !== undefined ? `sandbox failure: ${o.infraError}` : "canceled: the run was interrupted",
    };
  }
  const printed = planPasses(o.stdoutTail, tc.expectedOutput);
  const passed = printed && endedCleanly(o);
  const breach = limitBreach(o);
  const error = errorText(o, timeoutMs);
  const status = statusOf(passed, o, error);
  const failure_mode =
    status === "passed"
      ? undefined
      : (breach ??
        (status === "timeout" ? "timeout" : status === "error" ? "model_runtime_error" : "model_wrong_output"));
  return {
    ...base,
    status,
    passed,
    limit_breach: breach !== null,
    ...(failure_mode ? { failure_mode } : {}),
    error: error ?? null,
    // The output alone would have passed: say why the end of the run decided otherwise.
    ...(printed && !passed ? { reason: `printed the expected output, but ${error ?? "did not end cleanly"}` } : {}),
  };
}

/**
 * Run and judge one case. Never throws for the case's own failures (transpile errors become an `error`
 * row); throws InfrastructureError when our side cannot run it (the transpiler is not installed).
 */
export async function runTestCase(tc: SparcTestCase, ctx: CaseContext): Promise<SparcRow> {
  let req: ExecRequest;
  try {
    req = await buildExecRequest(tc, ctx);
  } catch (err) {
    if (err instanceof InfrastructureError) throw err;
    const failed = emptyOutcome({ stderrTail: errorMessage(err) });
    // Never ran: no `reason` (an empty expectedOutput would otherwise read as "printed the expected output").
    const { reason: _unused, ...row } = judgeOutcome(tc, failed, ctx);
    return { ...row, status: "error", passed: false, failure_mode: "model_compile_error", error: errorMessage(err) };
  }
  const outcome = await ctx.sandbox.exec(req, ctx.signal);
  return judgeOutcome(tc, outcome, ctx);
}
