/**
 * `<scenario dir>/.scenario_pids.json`: who runs the scenario. Written
 * atomically once every agent serves its card; removed when the scenario
 * stops. Each process is recorded with its start time and command line so a
 * later `--kill` can tell our process from a stranger that got the same pid.
 * `scenario_manager_pid` keeps smi_bench's key for tools that read it.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { BenchError } from "../util/errors.js";
import type { ProcIdentity } from "./proc-info.js";

/** File name of the pid file inside the scenario directory. */
export const PID_FILE = ".scenario_pids.json";

/** What launched the agents: the foreground `scenario` manager, `smoke --start`, or a library caller. */
export type OwnerKind = "scenario-manager" | "smoke" | "library";

/** One launched agent. */
export interface PidFileAgent extends ProcIdentity {
  name: string;
  is_green: boolean;
  /** Process group id (== pid: each agent leads its own group). */
  pgid: number;
  host: string;
  port: number;
  endpoint: string;
  card_url: string;
}

/** Content of the pid file. */
export interface PidFile {
  schema_version: 1;
  scenario_manager_pid: number;
  owner: ProcIdentity & { kind: OwnerKind };
  scenario_file: string;
  started_at: string;
  /** Names of variables taken from the env file (values are never written). */
  env_keys: string[];
  agents: PidFileAgent[];
}

export function pidFilePath(scenarioDir: string): string {
  return join(scenarioDir, PID_FILE);
}

/** Read the pid file; undefined when absent. A malformed file is an error (never guessed at). */
export function readPidFile(scenarioDir: string): PidFile | undefined {
  const path = pidFilePath(scenarioDir);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new BenchError("E_PID_FILE", `${path}: not JSON; remove it if no scenario runs`);
  }
  const d = doc as Partial<PidFile>;
  if (d.schema_version !== 1 || !Array.isArray(d.agents) || typeof d.owner?.pid !== "number")
    throw new BenchError(
      "E_PID_FILE",
      `${path}: not a pid file of this tool (schema_version 1); remove it if no scenario runs`,
    );
  return d as PidFile;
}

export async function writePidFile(scenarioDir: string, content: PidFile): Promise<void> {
  await writeJsonAtomic(pidFilePath(scenarioDir), content);
}

/** Remove the pid file if it still describes `ownerPid`'s launch (never another launch's file). */
export function removePidFile(scenarioDir: string, ownerPid?: number): void {
  if (ownerPid !== undefined) {
    try {
      const current = readPidFile(scenarioDir);
      if (current && current.owner.pid !== ownerPid) return;
    } catch {
      // Malformed: fall through and remove.
    }
  }
  rmSync(pidFilePath(scenarioDir), { force: true });
}
