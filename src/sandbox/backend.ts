/**
 * What a sandbox backend owns about itself, in one light object: its name, the
 * isolation levels it can report and which of them count as full, what it can
 * do beyond running a program with files, what preflight checks before using
 * it, and its factory, loaded only when a sandbox is created. Each backend's
 * folder exports one (`src/sandbox/<name>/descriptor.ts`); the registry
 * (registry.ts) is the only list of them.
 */
import type { Logger } from "../util/logger.js";
import type { Sandbox, SandboxLimits } from "./types.js";
import type { SandboxCapability } from "./capabilities.js";
import { SandboxError } from "./errors.js";

/**
 * The capabilities (capabilities.ts) a backend offers at its best. A sandbox it creates declares what it
 * offers there and then (`Sandbox.capabilities`, after probing: the local backend below bwrap offers fewer);
 * this static set is what preflight and an up-front refusal can know before any sandbox exists. A
 * benchmark that needs one names it (BenchmarkDescriptor.sandboxNeeds).
 */
export type BackendCapabilities = ReadonlySet<SandboxCapability>;

/**
 * What a backend enforces beyond the contract every backend keeps (exec with files, env and stdin, the
 * output cap, the wall limit, cancellation, close): `memory-limit` (SandboxLimits.memoryBytes),
 * `process-limit` (maxProcesses), `no-network` (jobs and environments reach no address). The conformance
 * suite (conformance/) checks each one claimed and reports the others not applicable.
 */
export type SandboxGuarantee = "memory-limit" | "process-limit" | "no-network";

/** A program a backend or a benchmark needs on this host's PATH. */
export interface ProgramNeed {
  /** Program name looked up on PATH ("python3", "bwrap", "git"). */
  readonly tool: string;
  /** The program actually looked up, when the environment can rename it (default: `tool`). */
  command?(env: NodeJS.ProcessEnv): string;
  /** How to get it, for a ✗. */
  readonly fix: string;
}

/** An environment variable a backend cannot start without. */
export interface EnvNeed {
  readonly name: string;
  /** How to set it, for a ✗. */
  readonly fix: string;
}

/** What preflight checks before a run with this backend (besides running `print(6*7)` in it). */
export interface BackendPreflight {
  /** Variables that must be set; preflight does not try the sandbox without them. */
  readonly env: readonly EnvNeed[];
  /** Programs on this host's PATH. */
  readonly programs: readonly ProgramNeed[];
  /** What to do when the sandbox cannot be created or cannot run `print(6*7)`. */
  readonly unavailableFix: string;
}

/**
 * The environment variables that select a backend's engine or service (which container engine, which E2B
 * domain and key). A process that starts runners on an operator's behalf (the green agent) passes them on:
 * without them a runner would silently reach another engine, or none.
 */
export interface BackendSelectionEnv {
  /** Exact names. */
  readonly names: readonly string[];
  /** Name prefixes ("E2B_"). */
  readonly prefixes: readonly string[];
}

/** How a sandbox is asked for: `createSandbox`'s options (index.ts). */
export interface CreateSandboxOptions {
  /** A registered backend's name (registry.ts; the built-in ones are `SandboxBackendName`s), checked on creation. */
  backend: string;
  /** Per-program limits; defaults in DEFAULT_LIMITS. */
  limits?: Partial<SandboxLimits>;
  logger: Logger;
  /** Programs in flight at once; default: available cores. */
  concurrency?: number;
  /**
   * Host paths no job may see (a run passes its datasets root, output dir, checkout and caches:
   * src/runner/sandbox-hidden-paths.ts). The local bwrap sandbox shows only an allowlist of the host
   * (local/host-view.ts) and masks these should they lie inside it; HOME and this package's own root
   * are always added. Other backends show jobs none of the host's files.
   */
  hiddenPaths?: readonly string[];
  /**
   * Who owns what the sandbox leaves outside this process (a run passes its id): docker and docker-pool
   * label their containers so, kubernetes names its assessment so.
   */
  owner?: string;
  /**
   * Options only the named backend understands, checked by its descriptor's `backendOptions` before its
   * code loads (docs/sandboxes.md lists each backend's).
   */
  backendOptions?: unknown;
}

/** A backend's factory: options already checked, limits resolved. */
export type SandboxFactory = (options: CreateSandboxOptions, limits: SandboxLimits) => Promise<Sandbox>;

/**
 * One sandbox backend. `Name` and `Level` are literal types, so the registry's
 * `as const` list yields the backend-name and isolation-level unions.
 */
export interface SandboxBackendDescriptor<Name extends string = string, Level extends string = string> {
  readonly name: Name;
  /** One line for usage texts and docs. */
  readonly summary: string;
  /** Every isolation level a sandbox of this backend can report, strongest first. */
  readonly isolationLevels: readonly Level[];
  /** The levels among them at which the participant's code cannot read or change the host. */
  readonly fullIsolation: readonly Level[];
  /**
   * Its sandboxes run on this host at the level the host's isolation probe finds (green/isolation.ts), so
   * the green agent checks that probe before it accepts a request for it. A backend with weak levels that
   * leaves this out cannot be checked before a run: the green refuses it unless weak isolation is allowed.
   */
  readonly hostIsolation?: boolean;
  readonly capabilities: BackendCapabilities;
  /** What it enforces beyond the common contract, at its best (absent: nothing more). */
  readonly guarantees?: readonly SandboxGuarantee[];
  readonly preflight: BackendPreflight;
  /** What selects this backend's engine or service; the green agent passes these to its runners. */
  readonly selectionEnv: BackendSelectionEnv;
  /**
   * Checks `CreateSandboxOptions.backendOptions` (a SandboxError E_SANDBOX_OPTIONS otherwise:
   * {@link checkBackendOptions}); its factory then gets them checked. A backend without it takes none.
   */
  backendOptions?(raw: unknown): object;
  /**
   * The backend options a run's resolved config gives (`docker_hosts` for docker-pool); absent: none.
   * Asked of the descriptor so the runner names no backend.
   */
  runOptions?(config: object): object | undefined;
  /** The factory, imported on first use (a backend's code loads only when a sandbox of it is created). */
  load(): Promise<SandboxFactory>;
}

/*
 * The check a backend's `backendOptions` runs: a plain object whose keys it knows, each of the kind it
 * expects, refused up front (E_SANDBOX_OPTIONS) before the backend's code loads.
 */

/** A check of its own for one key: what it accepts, in words, and the test. */
export interface OptionCheck {
  readonly what: string;
  fits(value: unknown): boolean;
}

/** What one key may hold: a kind of value, one of a list of strings, or a check of its own. */
export type OptionKind =
  "string" | "number" | "boolean" | "string-list" | "string-record" | readonly string[] | OptionCheck;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fits(kind: OptionKind, value: unknown): boolean {
  if (Array.isArray(kind)) return typeof value === "string" && kind.includes(value);
  if (typeof kind === "object") return (kind as OptionCheck).fits(value);
  if (kind === "string-list") return Array.isArray(value) && value.every((v) => typeof v === "string");
  if (kind === "string-record") return isRecord(value) && Object.values(value).every((v) => typeof v === "string");
  return typeof value === kind;
}

function describe(kind: OptionKind): string {
  if (Array.isArray(kind)) return `one of ${kind.join(", ")}`;
  if (typeof kind === "object") return (kind as OptionCheck).what;
  return `a ${kind}`;
}

/** `raw` checked against `keys` (undefined: no options); typed as `T`, whose keys are those of `keys`. */
export function checkBackendOptions<T extends object>(
  backend: string,
  raw: unknown,
  keys: { readonly [K in keyof T]-?: OptionKind },
): T {
  if (raw === undefined) return {} as T;
  if (!isRecord(raw)) throw new SandboxError("E_SANDBOX_OPTIONS", `${backend} backend options must be an object`);
  const kinds = keys as Readonly<Record<string, OptionKind>>;
  for (const [key, value] of Object.entries(raw)) {
    const kind = Object.hasOwn(kinds, key) ? kinds[key] : undefined;
    if (kind === undefined)
      throw new SandboxError(
        "E_SANDBOX_OPTIONS",
        `${backend} backend has no option "${key}" (its options: ${Object.keys(kinds).join(", ") || "none"})`,
      );
    if (value !== undefined && !fits(kind, value))
      throw new SandboxError(
        "E_SANDBOX_OPTIONS",
        `${backend} backend option "${key}" must be ${describe(kind)}, got ${JSON.stringify(value)}`,
      );
  }
  return raw as T;
}

/** `raw` as `descriptor`'s backend takes it: checked by its `backendOptions`; E_SANDBOX_OPTIONS for one that takes none. */
export function backendOptionsFor(descriptor: SandboxBackendDescriptor, raw: unknown): object | undefined {
  if (descriptor.backendOptions) return descriptor.backendOptions(raw);
  if (raw !== undefined)
    throw new SandboxError("E_SANDBOX_OPTIONS", `backend "${descriptor.name}" takes no backend options`);
  return undefined;
}

/** Typed identity: keeps a descriptor's name and levels as literal types (`as const` without writing it). */
export function defineSandboxBackend<const Name extends string, const Level extends string>(
  descriptor: SandboxBackendDescriptor<Name, Level>,
): SandboxBackendDescriptor<Name, Level> {
  return descriptor;
}
