/**
 * One task directory in Harbor's format (the format Terminal-Bench 2.0 and
 * Harbor's adapters publish): `task.toml` (timeouts, resources),
 * `instruction.md` (the agent's task), `environment/` (a Dockerfile and its
 * build context, or `[environment] docker_image`), `tests/test.sh` (the
 * verifier, writing `/logs/verifier/reward.txt` or `reward.json`) and
 * optionally `solution/solve.sh` (the oracle).
 *
 * What we do not support is kept on the task as `unsupported` (one sentence
 * per reason) so the run refuses it by name, never silently: a
 * multi-container environment (docker-compose), GPUs, a multi-step task.
 */
import { readFile, readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { TerminalTaskError } from "./errors.js";

/** Harbor's defaults where task.toml leaves a value out. */
export const TASK_DEFAULTS = Object.freeze({
  agentTimeoutSec: 600,
  verifierTimeoutSec: 600,
  buildTimeoutSec: 600,
  cpus: 1,
  memoryMb: 2048,
  storageMb: 10240,
});

export interface TerminalTask {
  /** The task directory's name: the task id. */
  id: string;
  /** Absolute path of the task directory. */
  dir: string;
  instruction: string;
  agentTimeoutSec: number;
  verifierTimeoutSec: number;
  /** `[verifier] env`: variables the verifier runs with (and nothing else of ours). */
  verifierEnv: Record<string, string>;
  buildTimeoutSec: number;
  cpus: number;
  memoryMb: number;
  storageMb: number;
  /**
   * Whether the task asks for the network: `[environment] allow_internet` (Harbor's default true), or
   * `network_mode` when given (`public`: yes, `no-network`: no).
   */
  allowInternet: boolean;
  /** `[environment] docker_image`: a prebuilt image instead of a Dockerfile. */
  dockerImage?: string;
  /** The environment's build context (`environment/`), when there is a Dockerfile. */
  environmentDir?: string;
  /** Whether `solution/solve.sh` exists. */
  hasSolution: boolean;
  /** Why we cannot run it (each a sentence); empty when we can. */
  unsupported: string[];
}

type Table = Record<string, unknown>;

function table(v: unknown): Table {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Table) : {};
}

function positive(t: Table, key: string, fallback: number, where: string): number {
  const v = t[key];
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0)
    throw new TerminalTaskError(`${where}.${key} must be a positive number, got ${JSON.stringify(v)}`);
  return v;
}

/** A size like "4G", "512M", "2048" (MB) → megabytes. */
export function sizeToMb(v: unknown, where: string): number {
  if (typeof v === "number" && v > 0) return v;
  const m = typeof v === "string" ? /^\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)i?[bB]?\s*$/.exec(v) : null;
  if (!m) throw new TerminalTaskError(`${where} must be a size like "4G" or "512M", got ${JSON.stringify(v)}`);
  const n = Number(m[1]);
  const unit = m[2]!.toLowerCase();
  const factor = unit === "k" ? 1 / 1024 : unit === "g" ? 1024 : unit === "t" ? 1024 * 1024 : 1;
  return Math.ceil(n * factor);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Read and check one task directory. Throws TerminalTaskError for a directory that is no readable task. */
export async function readTask(dir: string): Promise<TerminalTask> {
  const id = basename(dir);
  const where = `task ${id}`;
  let config: Table;
  try {
    config = parseToml(await readFile(join(dir, "task.toml"), "utf8"));
  } catch (err) {
    throw new TerminalTaskError(`${where}: cannot read task.toml: ${(err as Error).message}`);
  }
  let instruction: string;
  try {
    instruction = await readFile(join(dir, "instruction.md"), "utf8");
  } catch {
    throw new TerminalTaskError(`${where}: no instruction.md`);
  }
  if (!(await exists(join(dir, "tests", "test.sh")))) throw new TerminalTaskError(`${where}: no tests/test.sh`);
  const agent = table(config["agent"]);
  const verifier = table(config["verifier"]);
  const environment = table(config["environment"]);
  const unsupported: string[] = [];
  const verifierEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(table(verifier["env"]))) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new TerminalTaskError(`${where}: verifier.env name ${k} is invalid`);
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean")
      throw new TerminalTaskError(`${where}: verifier.env.${k} must be a string`);
    const text = String(v);
    // Harbor's `${NAME}` takes a secret from the host: we pass no host variable into a task.
    if (/\$\{[^}]*\}/.test(text)) unsupported.push(`verifier.env.${k} takes a host secret (${text}); none is passed`);
    verifierEnv[k] = text;
  }
  const memoryMb =
    environment["memory_mb"] !== undefined
      ? positive(environment, "memory_mb", TASK_DEFAULTS.memoryMb, `${where}: environment`)
      : environment["memory"] !== undefined
        ? sizeToMb(environment["memory"], `${where}: environment.memory`)
        : TASK_DEFAULTS.memoryMb;
  const storageMb =
    environment["storage_mb"] !== undefined
      ? positive(environment, "storage_mb", TASK_DEFAULTS.storageMb, `${where}: environment`)
      : environment["storage"] !== undefined
        ? sizeToMb(environment["storage"], `${where}: environment.storage`)
        : TASK_DEFAULTS.storageMb;
  const gpus = environment["gpus"];
  if (gpus !== undefined && gpus !== 0)
    unsupported.push(`it asks for GPUs (environment.gpus = ${JSON.stringify(gpus)})`);
  if (config["steps"] !== undefined) unsupported.push("it is a multi-step task ([[steps]])");
  const envDir = join(dir, "environment");
  for (const compose of ["docker-compose.yaml", "docker-compose.yml", "compose.yaml", "compose.yml"])
    if (await exists(join(envDir, compose)))
      unsupported.push(`its environment is a multi-container ${compose} (one container per task is supported)`);
  const dockerImage = typeof environment["docker_image"] === "string" ? environment["docker_image"] : undefined;
  const hasDockerfile = await exists(join(envDir, "Dockerfile"));
  if (!hasDockerfile && dockerImage === undefined && unsupported.length === 0)
    unsupported.push("it has neither environment/Dockerfile nor environment.docker_image");
  const allow = environment["allow_internet"];
  // Harbor's newer `network_mode` takes precedence over `allow_internet` when given.
  const mode = environment["network_mode"];
  if (mode !== undefined && mode !== "public" && mode !== "no-network" && mode !== "allowlist")
    throw new TerminalTaskError(`${where}: environment.network_mode must be public, no-network or allowlist`);
  if (mode === "allowlist")
    unsupported.push("it asks for a host allowlist (environment.network_mode = allowlist), which is not enforced here");
  if (allow !== undefined && typeof allow !== "boolean")
    throw new TerminalTaskError(`${where}: environment.allow_internet must be true or false`);
  return {
    id,
    dir,
    instruction,
    agentTimeoutSec: positive(agent, "timeout_sec", TASK_DEFAULTS.agentTimeoutSec, `${where}: agent`),
    verifierTimeoutSec: positive(verifier, "timeout_sec", TASK_DEFAULTS.verifierTimeoutSec, `${where}: verifier`),
    verifierEnv,
    buildTimeoutSec: positive(environment, "build_timeout_sec", TASK_DEFAULTS.buildTimeoutSec, `${where}: environment`),
    cpus: positive(environment, "cpus", TASK_DEFAULTS.cpus, `${where}: environment`),
    memoryMb,
    storageMb,
    allowInternet: mode !== undefined ? mode !== "no-network" : (allow ?? true),
    ...(dockerImage !== undefined ? { dockerImage } : {}),
    ...(hasDockerfile ? { environmentDir: envDir } : {}),
    hasSolution: await exists(join(dir, "solution", "solve.sh")),
    unsupported,
  };
}

/**
 * The task directories of a dataset directory, sorted by id: each subdirectory holding a task.toml (the
 * directory itself when it is one task). A subdirectory without task.toml is skipped; none at all is an error.
 */
export async function taskDirsOf(root: string): Promise<string[]> {
  if (await exists(join(root, "task.toml"))) return [root];
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (err) {
    throw new TerminalTaskError(`cannot read the task directory ${root}: ${(err as Error).message}`);
  }
  const dirs: string[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isDirectory() || e.name.startsWith(".")) continue;
    if (await exists(join(root, e.name, "task.toml"))) dirs.push(join(root, e.name));
  }
  if (dirs.length === 0) throw new TerminalTaskError(`${root} holds no task directory (a subdirectory with task.toml)`);
  return dirs;
}
