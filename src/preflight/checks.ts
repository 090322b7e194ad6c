/**
 * The individual preflight checks, each a function of its inputs and
 * injected probes (so tests can drive "missing dataset", "no sandbox", busy
 * ports without touching the machine).
 */
import { existsSync, statSync } from "node:fs";
import { errorMessage } from "../util/errors.js";
import type { BenchmarkName } from "../benchmarks/index.js";
import type { ScenarioAgent } from "../scenario/spec.js";
import { fail, pass, type CheckResult } from "./check.js";
import { WEAK_ISOLATION_FIX, isFullIsolation } from "../runner/isolation-policy.js";
import { DEFAULT_SANDBOX_BACKEND, sandboxBackend, type SandboxBackendName } from "../sandbox/registry.js";

/** Minimum Node version (package.json `engines`; @e2b/code-interpreter needs 20.18.1). */
export const MIN_NODE = "20.18.1";

function versionAtLeast(actual: string, min: string): boolean {
  const a = actual.replace(/^v/, "").split(".").map(Number);
  const b = min.split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

export function checkNode(version: string): CheckResult {
  return versionAtLeast(version, MIN_NODE)
    ? pass("node", `${version} (>= ${MIN_NODE})`)
    : fail(
        "node",
        `${version} is older than ${MIN_NODE}`,
        `install Node ${MIN_NODE} or newer (e.g. \`nvm install 20\`)`,
      );
}

/** Loads a benchmark's dataset and returns its item count (throws when unreadable/unparsable). */
export type DatasetLoader = (benchmark: BenchmarkName, dataset: string) => Promise<number>;

export async function checkDataset(
  benchmark: BenchmarkName,
  dataset: string,
  load: DatasetLoader,
): Promise<CheckResult> {
  if (benchmark === "smi-inhabit") {
    // The external runner reads its own corpus; the dataset argument is its corpus root.
    if (dataset === "sample")
      return pass("dataset", "smi-inhabit reads its own corpus (pass --dataset <corpus root> to check it)");
    return existsSync(dataset) && statSync(dataset).isDirectory()
      ? pass("dataset", `corpus root ${dataset} exists`)
      : fail(
          "dataset",
          `corpus root ${dataset} is not a directory`,
          "point --dataset (config corpus_root) at smi_bench's corpus",
        );
  }
  try {
    const n = await load(benchmark, dataset);
    if (n === 0)
      return fail(
        "dataset",
        `${benchmark} dataset "${dataset}" has no items`,
        "check the file: it parsed but held no task",
      );
    return pass("dataset", `${benchmark} dataset "${dataset}": ${n} items parsed`);
  } catch (err) {
    return fail(
      "dataset",
      `${benchmark} dataset "${dataset}" unusable: ${errorMessage(err)}`,
      "pass --dataset sample (embedded) or a readable file; for the full sets set A2A_BENCH_DATASETS to the directory holding them (see docs/operators.md, section Troubleshooting each ✗)",
    );
  }
}

/** What a sandbox probe found after running a tiny program. */
export interface SandboxProbe {
  isolation: string;
  warnings: readonly string[];
  /** The tiny program's output (expected "42"). */
  output: string;
}
export type SandboxProber = (backend: SandboxBackendName) => Promise<SandboxProbe>;

/** The variables `backend` cannot start without that `env` lacks (its descriptor's `preflight.env`). */
function missingEnv(backend: SandboxBackendName, env: NodeJS.ProcessEnv) {
  return sandboxBackend(backend).preflight.env.filter((need) => !env[need.name]);
}

export async function checkSandbox(
  backend: SandboxBackendName,
  env: NodeJS.ProcessEnv,
  probe: SandboxProber,
  allowWeakIsolation = false,
): Promise<CheckResult> {
  const missing = missingEnv(backend, env);
  if (missing.length > 0)
    return fail(
      "sandbox",
      `${backend} sandbox not tried: ${missing.map((n) => n.name).join(", ")} ${missing.length === 1 ? "is" : "are"} not set`,
      `${missing.map((n) => `export ${n.name}=...`).join("; ")} (or use --sandbox ${DEFAULT_SANDBOX_BACKEND})`,
    );
  try {
    const p = await probe(backend);
    if (p.output.trim() !== "42")
      return fail(
        "sandbox",
        `${backend} sandbox ran print(6*7) but printed ${JSON.stringify(p.output.slice(0, 200))}`,
        "check python3 inside the sandbox (`python3 -c 'print(6*7)'`)",
        [...p.warnings],
      );
    if (p.isolation === "none")
      return fail(
        "sandbox",
        `${backend} sandbox works but isolates nothing (isolation=none)`,
        "install bubblewrap (`apt-get install bubblewrap`) and allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1); in Docker see docs/operators.md, section Docker images",
        [...p.warnings],
      );
    if (!isFullIsolation(p.isolation) && !allowWeakIsolation)
      return fail(
        "sandbox",
        `${backend} sandbox works but isolation=${p.isolation} is weak (untrusted code can read the host's files); the green agent refuses A2A requests at this level`,
        `${WEAK_ISOLATION_FIX}; or, knowingly, run the green agent with --allow-weak-isolation and preflight with --allow-weak-isolation`,
        [...p.warnings],
      );
    return pass("sandbox", `${backend} sandbox ran print(6*7) → 42, isolation=${p.isolation}`, [...p.warnings]);
  } catch (err) {
    return fail(
      "sandbox",
      `${backend} sandbox unavailable: ${errorMessage(err)}`,
      sandboxBackend(backend).preflight.unavailableFix,
    );
  }
}

/** The environment variables the backend needs (E2B_API_KEY for e2b), as its descriptor lists them. */
export function checkSandboxEnv(backend: SandboxBackendName, env: NodeJS.ProcessEnv): CheckResult {
  const needed = sandboxBackend(backend).preflight.env;
  if (needed.length === 0) return pass("sandbox_env", `none needed (sandbox=${backend})`);
  const missing = missingEnv(backend, env);
  return missing.length === 0
    ? pass("sandbox_env", `${needed.map((n) => n.name).join(", ")} ${needed.length === 1 ? "is" : "are"} set`)
    : fail(
        "sandbox_env",
        `${missing.map((n) => n.name).join(", ")} ${missing.length === 1 ? "is" : "are"} not set`,
        missing.map((n) => n.fix).join("; "),
      );
}

/** Benchmarks the built-in runner knows (from the benchmark manager). */
export type KnownBenchmarks = () => string[];

export function checkRunner(
  benchmark: BenchmarkName,
  env: NodeJS.ProcessEnv,
  deps: { cliEntry: string; known: KnownBenchmarks; resolve: (program: string) => string | undefined },
): CheckResult {
  if (benchmark === "smi-inhabit") {
    const program = env["GREEN_SMI_INHABIT_COMMAND"] || "smi-inhabit";
    const found = deps.resolve(program);
    return found
      ? pass("runner", `smi-inhabit runner: ${found}`)
      : fail(
          "runner",
          `smi-inhabit runner "${program}" not found on PATH`,
          "install smi_bench's smi-inhabit or set GREEN_SMI_INHABIT_COMMAND to its path",
        );
  }
  if (!existsSync(deps.cliEntry)) return fail("runner", `${deps.cliEntry} missing`, "run `npm run build`");
  const known = deps.known();
  return known.includes(benchmark)
    ? pass("runner", `\`a2a-bench run ${benchmark}\` via ${deps.cliEntry}`)
    : fail(
        "runner",
        `benchmark "${benchmark}" is not registered (known: ${known.join(", ")})`,
        "pick one of the known benchmarks with --benchmark",
      );
}

export type PortProbe = (host: string, port: number) => Promise<boolean>;
export type CardProbe = (cardUrl: string) => Promise<boolean>;

/** What to do about an agent's port that is taken (see preflight/port-holder.ts); default: the generic advice. */
export type PortAdviser = (agent: ScenarioAgent) => Promise<string>;

/**
 * Verdict on the scenario's ports: "free" (smoke will start the agents), "running" (smoke uses them) or a ✗,
 * whose fix says, port by port, how to free it as the holder was started (`adviser`).
 */
export async function checkPorts(
  agents: readonly ScenarioAgent[],
  portFree: PortProbe,
  cardServed: CardProbe,
  adviser?: PortAdviser,
): Promise<{ result: CheckResult; mode: "free" | "running" | "blocked" }> {
  const states = await Promise.all(
    agents.map(async (a) => {
      if (await portFree(a.host, a.port)) return { a, state: "free" as const };
      return { a, state: (await cardServed(a.cardUrl)) ? ("healthy" as const) : ("busy" as const) };
    }),
  );
  const notes = states.map(
    ({ a, state }) =>
      `${a.name} ${a.host}:${a.port} ${state === "free" ? "free" : state === "healthy" ? "agent healthy" : "in use, no agent card"}`,
  );
  const advice = async (held: ReadonlyArray<{ a: ScenarioAgent }>): Promise<string | undefined> =>
    adviser ? (await Promise.all(held.map(({ a }) => adviser(a)))).join("; ") : undefined;
  const busy = states.filter((s) => s.state === "busy");
  if (busy.length > 0)
    return {
      mode: "blocked",
      result: fail(
        "ports",
        `${busy.map((s) => `${s.a.host}:${s.a.port}`).join(", ")} in use by something that is not an agent`,
        `${(await advice(busy)) ?? "stop that program (`ss -ltnp` shows it)"}; or change agent_port in scenario.toml (a2a-bench never kills by port)`,
        notes,
      ),
    };
  if (states.every((s) => s.state === "free"))
    return { mode: "free", result: pass("ports", "all free (smoke will start the scenario)", notes) };
  if (states.every((s) => s.state === "healthy"))
    return { mode: "running", result: pass("ports", "agents already running and healthy", notes) };
  const running = await advice(states.filter((s) => s.state === "healthy"));
  return {
    mode: "blocked",
    result: fail(
      "ports",
      "some agents run and others do not",
      running === undefined
        ? "stop the running ones (`a2a-bench scenario --kill` if a2a-bench started them) or start the rest"
        : `stop the running ones or start the rest. ${running}`,
      notes,
    ),
  };
}

/** A program or fixture a benchmark needs, as found on this host. */
export interface ToolFinding {
  /** What was looked for: "python3", "pytest", "git", "bwrap", "root (RedCode fixtures)". */
  tool: string;
  ok: boolean;
  /** Where or what was found / why not. */
  detail: string;
  /** For a missing tool: how to get it. */
  fix: string;
}
/** Looks for the tools `benchmark` needs with the `backend` sandbox. */
export type ToolProber = (benchmark: BenchmarkName, backend: SandboxBackendName) => Promise<ToolFinding[]>;

export async function checkTools(
  benchmark: BenchmarkName,
  backend: SandboxBackendName,
  probe: ToolProber,
): Promise<CheckResult> {
  let findings: ToolFinding[];
  try {
    findings = await probe(benchmark, backend);
  } catch (err) {
    return fail("tools", `could not look for ${benchmark}'s tools: ${errorMessage(err)}`, "check PATH and python3");
  }
  const notes = findings.map((f) => `${f.ok ? "found" : "MISSING"} ${f.tool}: ${f.detail}`);
  const missing = findings.filter((f) => !f.ok);
  if (missing.length === 0)
    return pass(
      "tools",
      `${benchmark} needs ${findings.map((f) => f.tool).join(", ") || "nothing more"}: all found`,
      notes,
    );
  return fail(
    "tools",
    `${benchmark} cannot run: ${missing.map((f) => f.tool).join(", ")} missing`,
    missing.map((f) => f.fix).join("; "),
    notes,
  );
}

/** Fetches the participant's agent card; rejects with the reason (URL and cause). */
export type ParticipantProbe = (url: string) => Promise<void>;

export async function checkParticipant(url: string | undefined, probe: ParticipantProbe): Promise<CheckResult> {
  if (url === undefined)
    return pass("participant", "no --agent given: the smoke assessment checks the scenario's participant");
  try {
    await probe(url);
    return pass("participant", `agent card of ${url} fetched`);
  } catch (err) {
    const fix = (err as { fix?: unknown }).fix;
    const message = typeof fix === "string" ? errorMessage(err).replace(`; fix: ${fix}`, "") : errorMessage(err);
    return fail(
      "participant",
      message,
      typeof fix === "string" ? fix : "start the participant agent or correct --agent",
    );
  }
}
