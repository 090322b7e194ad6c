/**
 * `GET /health`: 200 `{status:"ok", activeTasks, queued, isolation, runner:{...}}`,
 * 503 `starting` while the start-up isolation probe runs (`isolation: {state: "probing"}`),
 * or 503 `degraded` with `missing` naming what is missing. Weak sandbox
 * isolation without the operator's opt-in is "missing": A2A requests for the
 * local sandbox would be refused.
 */
import { access, mkdir } from "node:fs/promises";
import { constants, existsSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { cliEntry, schemasDir } from "../util/package-root.js";
import { DEFAULT_SMI_INHABIT_COMMAND } from "./runner-command.js";
import type { IsolationReport } from "./isolation.js";
import { WEAK_ISOLATION_FIX, isFullIsolation } from "../runner/isolation-policy.js";
import { errorMessage } from "../util/errors.js";

export interface RunnerProbe {
  /** Runner facts for the report. */
  info: Record<string, unknown>;
  /** What is missing for runs to work (empty = fine). */
  missing: string[];
}

/** Find an executable on PATH (or check an absolute/relative path). */
export function findExecutable(cmd: string, env: NodeJS.ProcessEnv): string | null {
  const candidates =
    isAbsolute(cmd) || cmd.includes("/")
      ? [cmd]
      : (env["PATH"] ?? "")
          .split(delimiter)
          .filter(Boolean)
          .map((d) => join(d, cmd));
  for (const c of candidates) {
    try {
      if (existsSync(c)) return c;
    } catch {
      // unreadable dir
    }
  }
  return null;
}

/**
 * Default probe: the built-in runner entry (dist/cli.js) must exist; the
 * external smi-inhabit command is reported but optional (only its benchmark needs it).
 */
export function defaultRunnerProbe(env: NodeJS.ProcessEnv): () => RunnerProbe {
  return () => {
    const smiCmd = env["GREEN_SMI_INHABIT_COMMAND"] || DEFAULT_SMI_INHABIT_COMMAND;
    const smiPath = findExecutable(smiCmd, env);
    const builtin = existsSync(cliEntry);
    return {
      info: {
        builtin: { entry: cliEntry, present: builtin },
        smi_inhabit: { command: smiCmd, found: smiPath !== null },
      },
      missing: [...(builtin ? [] : [`built-in runner ${cliEntry} (run npm run build)`])],
    };
  };
}

export interface HealthInput {
  activeTasks: number;
  queued: number;
  maxConcurrent: number;
  maxQueued: number;
  resultsRoot: string;
  probe: () => RunnerProbe;
  isolation: () => Promise<IsolationReport>;
  /**
   * True while the start-up probe is still running: /health then answers at once
   * with `isolation: {state: "probing"}` and status "starting" (HTTP 503) instead
   * of waiting for it. Requests that need the answer wait for it (executor.ts).
   */
  isolationProbing?: () => boolean;
  allowWeakIsolation: boolean;
}

export async function healthReport(h: HealthInput): Promise<{ status: number; body: Record<string, unknown> }> {
  const probe = h.probe();
  const missing = [...probe.missing];
  if (!existsSync(schemasDir)) missing.push(`schemas directory ${schemasDir}`);
  try {
    await mkdir(h.resultsRoot, { recursive: true });
    await access(h.resultsRoot, constants.W_OK);
  } catch {
    missing.push(`writable results directory ${h.resultsRoot}`);
  }
  let isolation: Record<string, unknown>;
  const probing = h.isolationProbing?.() === true;
  if (probing) isolation = { state: "probing" };
  else
    try {
      const iso = await h.isolation();
      const full = isFullIsolation(iso.level);
      isolation = {
        state: "probed",
        backend: iso.backend,
        level: iso.level,
        full,
        weak_allowed: h.allowWeakIsolation,
        warnings: iso.warnings,
      };
      if (!full && !h.allowWeakIsolation)
        missing.push(`full sandbox isolation (have "${iso.level}"): ${WEAK_ISOLATION_FIX}`);
    } catch (err) {
      isolation = { error: errorMessage(err) };
      missing.push(`sandbox isolation probe: ${errorMessage(err)}`);
    }
  const ready = missing.length === 0 && !probing;
  const body = {
    status: missing.length > 0 ? "degraded" : probing ? "starting" : "ok",
    ...(missing.length > 0 ? { missing } : {}),
    activeTasks: h.activeTasks,
    queued: h.queued,
    maxConcurrentTasks: h.maxConcurrent,
    maxQueuedTasks: h.maxQueued,
    isolation,
    resultsRoot: h.resultsRoot,
    runner: probe.info,
  };
  return { status: ready ? 200 : 503, body };
}
