/**
 * Run one SPARC test case in the sandbox in its language and judge it by the
 * plan's rule. python → python3; javascript → node (CommonJS); typescript →
 * transpiled to CommonJS, then node. Installed packages are exposed through
 * NODE_PATH / PYTHONPATH, read-only.
 */
import type { ExecOutcome, ExecRequest, Sandbox, SandboxLanguage } from "../../sandbox/types.js";
import { assertNever, errorMessage } from "../../util/errors.js";
import type { SparcBenchmarkType, SparcLanguage, SparcTestCase } from "./config.js";
import { planDefaultTimeoutMs } from "./config.js";
import { planPasses } from "./pass-rule.js";
import type { SparcRow, SparcStatus } from "./row.js";
import { transpileTypeScript } from "./transpile.js";
import { InfrastructureError } from "../../util/infrastructure-error.js";
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
    if (ctx.sandbox.isolation === "bwrap") {
      // Bound read-only at a fixed one-level path under the sandbox's own /tmp: mount points that bwrap
      // has to create deeper inside its tmpfs come out root-only (0700) and the unprivileged program
      // could not traverse them; /tmp itself is world-traversable.
      const target = PACKAGE_MOUNT[pkgs.language];
      req.binds = [{ host: pkgs.dir, target, writable: false }];
      req.env = { [pkgs.language === "python" ? "PYTHONPATH" : "NODE_PATH"]: target };
    } else {
      // Weaker isolation levels see the host file system as it is (and refuse binds): point at the
      // cache directly; the program runs as another uid and cannot write to the root-owned set.
      req.env = { ...pkgs.env };
    }
  }
  return req;
}

/** Why the program did not end cleanly, or undefined when it exited 0. */
function errorText(o: ExecOutcome, timeoutMs: number): string | undefined {
  if (o.timedOut) return `timed out after ${timeoutMs} ms`;
  if (o.outputLimitExceeded) return "stopped: output limit exceeded";
  if (o.exitCode === 0) return undefined;
  const tail = o.stderrTail.trim().slice(-ERROR_TAIL_CHARS);
  const status = o.signal ? `killed by ${o.signal}` : `exit code ${o.exitCode}`;
  return tail ? `${status}: ${tail}` : status;
}

/** Classify a sandbox outcome into a row (pure; exported for tests). */
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
  };
  if (o.infraError !== undefined) {
    return {
      ...base,
      status: "skipped",
      passed: false,
      limit_breach: false,
      failure_mode: "infrastructure_sandbox",
      error: `sandbox failure: ${o.infraError}`,
    };
  }
  const printed = planPasses(o.stdoutTail, tc.expectedOutput);
  const proof = proofVerdict(o);
  const passed = printed && proof.ok;
  const breach = limitBreach(o);
  const error = errorText(o, timeoutMs);
  if (printed && !proof.ok && !o.timedOut && breach === null) {
    return {
      ...base,
      status: proof.mode === "infrastructure_sandbox" ? "skipped" : "failed",
      passed: false,
      limit_breach: false,
      failure_mode: proof.mode,
      error: error ?? null,
      proof: retiredProof(o).proof ?? "not_requested",
      reason: proof.reason,
    };
  }
  let status: SparcStatus;
  if (passed) status = "passed";
  else if (o.timedOut) status = "timeout";
  else if (error !== undefined) status = "error";
  else status = "failed";
  // A breach is reported even when the plan's rule passed the case (it printed the text, then misbehaved).
  const failure_mode =
    breach ??
    (status === "passed"
      ? undefined
      : status === "timeout"
        ? "timeout"
        : status === "error"
          ? "model_runtime_error"
          : "model_wrong_output");
  return {
    ...base,
    status,
    passed,
    limit_breach: breach !== null,
    ...(failure_mode ? { failure_mode } : {}),
    error: error ?? null,
    ...(retiredProof(o).proof !== undefined ? { proof: retiredProof(o).proof } : {}),
  };
}

/** Whether the outcome proves the program ran to its end (an outcome that did not ask is taken as it is). */
function proofVerdict(o: ExecOutcome): { ok: true } | { ok: false; mode: string; reason: string } {
  const { proof, proofNote } = retiredProof(o);
  const note = proofNote ? `: ${proofNote}` : "";
  switch (proof) {
    case undefined:
    case "verified":
      return { ok: true };
    case "missing":
      return {
        ok: false,
        mode: "model_exit_before_end",
        reason: `printed the expected output but did not run to its end${note}`,
      };
    case "mismatch":
    case "tampered":
      return {
        ok: false,
        mode: "model_tampered",
        reason: `printed the expected output but the pass proof was ${proof}${note}`,
      };
    case "unsupported":
      return {
        ok: false,
        mode: "infrastructure_sandbox",
        reason: `this sandbox cannot prove the program ran to its end${note}`,
      };
    default:
      return assertNever(proof, "proof");
  }
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
    const failed: ExecOutcome = {
      exitCode: null,
      signal: null,
      timedOut: false,
      isCanceled: false,
      outputLimitExceeded: false,
      durationMs: 0,
      stdoutTail: "",
      stderrTail: errorMessage(err),
    };
    return {
      ...judgeOutcome(tc, failed, ctx),
      status: "error",
      passed: false,
      failure_mode: "model_compile_error",
      error: errorMessage(err),
    };
  }
  const outcome = await ctx.sandbox.exec(req, ctx.signal);
  return judgeOutcome(tc, outcome, ctx);
}

/**
 * The sandbox no longer offers a pass proof (retired from src/sandbox; this benchmark is being changed
 * to judge from outside the sandbox): treated as absent, as for an outcome that never asked for one.
 */
function retiredProof(_o: ExecOutcome): {
  proof?: "verified" | "missing" | "mismatch" | "tampered" | "unsupported";
  proofNote?: string;
} {
  return {};
}
