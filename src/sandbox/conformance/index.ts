/**
 * The conformance suite every sandbox backend runs on itself (Inspect AI's
 * sandbox `self_check` is the model): exec, files, limits, timeouts,
 * cancellation, no network, cleanup and environments, each a named check
 * whose result is `passed`, `failed` (with what was seen) or
 * `not-applicable` (the backend does not claim it: never counted as passed).
 * What a backend claims is asked of its descriptor (`capabilities`,
 * `guarantees`) and of the sandbox it creates, never of its name.
 * A test runs it with one call (tests/support/conformance.ts); operators with
 * `a2a-bench sandbox check BACKEND`. docs/sandbox-backends.md lists the checks.
 */
import { backendOptionsFor, type CreateSandboxOptions, type SandboxBackendDescriptor } from "../backend.js";
import type { Sandbox } from "../types.js";
import { resolveLimits } from "../limits.js";
import { silentLogger, type Logger } from "../../util/logger.js";
import { hostProcesses, type ProcessObserver } from "./observe.js";
import { EXEC_CHECKS, EXEC_OWN_CHECKS } from "./exec-checks.js";
import { ENVIRONMENT_CHECKS, ENVIRONMENT_OWN_CHECKS } from "./environment-checks.js";

import {
  CONFORMANCE_CHECKS,
  CONFORMANCE_LIMITS,
  type Check,
  type CheckContext,
  type OwnCheck,
  type CheckOutcome,
  type ConformanceCheckName,
  type ConformanceResult,
} from "./types.js";

export { hostProcesses, type ProcessObserver } from "./observe.js";
export { CONFORMANCE_CHECKS, type ConformanceCheckName, type ConformanceResult } from "./types.js";

export interface ConformanceOptions {
  /** Options the backend's factory takes (owner, `backendOptions`: e2b connection, docker image…); `backend` and `logger` are set here. */
  sandboxOptions?: Partial<Omit<CreateSandboxOptions, "backend" | "logger" | "limits">>;
  logger?: Logger;
  /**
   * Image an environment starts from, for a backend with the capability `images` (required there:
   * without it the environment checks are not applicable).
   */
  image?: string;
  /** Sees the backend's processes (default: this host's /proc); null: the checks that need it are not applicable. */
  observer?: ProcessObserver | null;
  /**
   * What the backend holds on its platform for this run (containers, pods, remote sandboxes), listed by
   * the caller (by the owner label `owner` below): empty after close. Absent: only processes are checked.
   */
  resources?: () => Promise<readonly string[]>;
  /**
   * A directory an environment can write (absolute), for the checks' files: default /tmp/a2a-conformance.
   * A backend that mounts a fresh /tmp over the image (docker) or confines writes to a home names its own.
   */
  filesDir?: string;
  /** Owner name given to environments (and passed to `resources`' filter by the caller). */
  owner?: string;
  /** Run only these checks (the others are not reported). */
  only?: readonly ConformanceCheckName[];
}

/**
 * Run the suite on `descriptor`'s backend. Never rejects for a backend's failure: a sandbox that cannot be
 * created fails every check with the reason.
 */
export async function runConformance(
  descriptor: SandboxBackendDescriptor,
  options: ConformanceOptions = {},
): Promise<ConformanceResult[]> {
  const logger = options.logger ?? silentLogger();
  const limits = resolveLimits(CONFORMANCE_LIMITS);
  const factory = await descriptor.load();
  const ctx: CheckContext = {
    descriptor,
    limits,
    create: async () => {
      const backendOptions = backendOptionsFor(descriptor, options.sandboxOptions?.backendOptions);
      return factory({ ...options.sandboxOptions, backend: descriptor.name, logger, limits, backendOptions }, limits);
    },
    observer: options.observer === undefined ? hostProcesses : options.observer,
    resources: options.resources ?? null,
    image: options.image,
    filesDir: options.filesDir ?? "/tmp/a2a-conformance",
    owner: options.owner ?? "conformance",
  };
  const shared: Partial<Record<ConformanceCheckName, Check>> = { ...EXEC_CHECKS, ...ENVIRONMENT_CHECKS };
  const own: Partial<Record<ConformanceCheckName, OwnCheck>> = { ...EXEC_OWN_CHECKS, ...ENVIRONMENT_OWN_CHECKS };
  const names = CONFORMANCE_CHECKS.filter((n) => options.only === undefined || options.only.includes(n));
  const results: ConformanceResult[] = [];
  let sandbox: Sandbox | null = null;
  let unavailable: string | null = null;
  const run = async (check: ConformanceCheckName): Promise<CheckOutcome> => {
    const alone = own[check];
    if (alone !== undefined) {
      // What the backend holds is checked after close: the shared sandbox must be gone first.
      await sandbox?.close();
      sandbox = null;
      return alone(ctx);
    }
    if (sandbox === null && unavailable === null) {
      try {
        sandbox = await ctx.create();
      } catch (e) {
        unavailable = `the ${descriptor.name} sandbox cannot be created: ${(e as Error).message}`;
      }
    }
    if (sandbox === null) return unavailable ?? "no sandbox";
    return shared[check]!(ctx, sandbox);
  };
  try {
    for (const check of names) {
      const started = Date.now();
      let outcome: CheckOutcome;
      try {
        outcome = await run(check);
      } catch (e) {
        outcome = `threw: ${(e as Error).stack ?? String(e)}`;
      }
      const result: ConformanceResult = {
        check,
        status: outcome === null ? "passed" : typeof outcome === "string" ? "failed" : "not-applicable",
        detail: outcome === null ? "" : typeof outcome === "string" ? outcome : outcome.na,
        durationMs: Date.now() - started,
      };
      results.push(result);
      logger.info({ check, status: result.status }, "conformance check");
    }
  } finally {
    await (sandbox as Sandbox | null)?.close();
  }
  return results;
}

/** The report as text lines: ✓ passed, ✗ failed, – not applicable (never counted as passed). */
export function formatConformance(backend: string, results: readonly ConformanceResult[]): string {
  const mark = { passed: "✓", failed: "✗", "not-applicable": "–" } as const;
  const lines = results.map(
    (r) =>
      `${mark[r.status]} ${r.check}${r.status === "passed" ? "" : `: ${r.status === "failed" ? "" : "not applicable: "}${r.detail}`}`,
  );
  const count = (s: ConformanceResult["status"]) => results.filter((r) => r.status === s).length;
  lines.push(
    `${backend}: ${count("passed")} passed, ${count("failed")} failed, ${count("not-applicable")} not applicable`,
  );
  return lines.join("\n") + "\n";
}
