/**
 * Shared plumbing of the reward-hacking suite: run the built CLI (dist/cli.js)
 * as the green agent would, in a results root the sandbox uid can traverse,
 * and read the rows back by id.
 */
import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile } from "node:fs/promises";
import { join } from "node:path";
import { cliEntry, packageRoot } from "../../src/util/package-root.js";

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Hard limit of one CLI run, ms: only a guard against a hang. Runs take seconds to half a minute on a quiet
 * machine and several times that on a busy one; keep it below the calling hooks' timeout ({@link RUN_HOOK_MS}).
 */
export const CLI_RUN_LIMIT_MS = 540_000;

/** Timeout of a hook that makes one CLI run: above {@link CLI_RUN_LIMIT_MS}, so a hang is cut and reported. */
export const RUN_HOOK_MS = 600_000;

/**
 * `node dist/cli.js run <args>`, in its own process group so that a run that
 * overstays {@link CLI_RUN_LIMIT_MS} is killed with everything under it;
 * `onStart` gets the runner's pid (e.g. to sample its memory).
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, onStart?: (pid: number) => void): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliEntry, "run", ...args], {
      env: { ...process.env, LOG_LEVEL: "silent", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    if (child.pid !== undefined) onStart?.(child.pid);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, CLI_RUN_LIMIT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * A fresh directory under the package's git-ignored `.cache/` (not the host's
 * /tmp: the sandbox uid must traverse a work dir's parents), mode 0755.
 */
export async function packageTempDir(prefix: string): Promise<string> {
  await mkdir(join(packageRoot, ".cache"), { recursive: true });
  const dir = await mkdtemp(join(packageRoot, ".cache", prefix));
  await chmod(dir, 0o755);
  return dir;
}

export type Row = Record<string, unknown> & { id: string; status: string };

/** The rows of `<out>/results.json`, by id, plus the run's own status. */
export async function readRows(
  out: string,
): Promise<{ status: string; rows: Map<string, Row>; results: Record<string, unknown> }> {
  const results = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as Record<string, unknown> & {
    rows: Row[];
    status: string;
  };
  return { status: results.status, rows: new Map(results.rows.map((r) => [r.id, r])), results };
}

/** One-line summary of a row for assertion messages. */
export const describeRow = (r: Row | undefined): string =>
  JSON.stringify(r, (k, v) => (k === "output_tail" || k === "stdout_tail" ? undefined : v)).slice(0, 1500);
