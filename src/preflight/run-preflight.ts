/**
 * Preflight: the checks in order (node, dataset, sandbox, tools, sandbox env,
 * runner, participant, ports, smoke), one ✓/✗ line each with the fix for a ✗, ending
 * `ready_for_full_run=true|false`. Every probe is injectable.
 */
import { Writable } from "node:stream";
import { cliEntry } from "../util/package-root.js";
import { errorMessage } from "../util/errors.js";
import type { BenchmarkName } from "../benchmarks/index.js";
import type { SandboxBackendName } from "../sandbox/registry.js";
import { loadScenario } from "../scenario/load.js";
import { isPortFree } from "../scenario/port-check.js";
import { fetchCard } from "../scenario/wait-card.js";
import { runSmoke, type SmokeOptions, type SmokeResult } from "../smoke/run-smoke.js";
import { fail, pass, renderCheck, type CheckResult } from "./check.js";
import {
  checkDataset,
  checkNode,
  checkPorts,
  checkRunner,
  checkSandbox,
  checkSandboxEnv,
  checkTools,
  checkParticipant,
  type ParticipantProbe,
  type ToolProber,
  type CardProbe,
  type DatasetLoader,
  type KnownBenchmarks,
  type PortProbe,
  type SandboxProber,
} from "./checks.js";
import { resolveCommand } from "./resolve-command.js";
import { portAdvice, portHolderProbe, type PortHolderProbe } from "./port-holder.js";
import type { LogLevel } from "../util/log-level.js";

export interface PreflightOptions {
  scenarioDir: string;
  benchmark: BenchmarkName;
  /** Dataset to check (`sample`, `humaneval-full` or a path); default `sample`. */
  dataset: string;
  sandbox: SandboxBackendName;
  /** Smoke items (kept small: preflight proves the wiring, not the score). Default 2. */
  smokeSamples: number;
  /** Participant URL to check (`--agent`); default: none (the smoke assessment checks the scenario's). */
  agent?: string;
  /** Weak sandbox isolation is a ✓ with a warning instead of a ✗ (`--allow-weak-isolation`). */
  allowWeakIsolation?: boolean;
  /** LOG_LEVEL of the agents the smoke assessment starts. */
  logLevel?: LogLevel | undefined;
}

export interface PreflightDeps {
  nodeVersion: string;
  env: NodeJS.ProcessEnv;
  loadDataset: DatasetLoader;
  probeSandbox: SandboxProber;
  probeTools: ToolProber;
  probeParticipant: ParticipantProbe;
  knownBenchmarks: KnownBenchmarks;
  resolveCommand: (program: string) => string | undefined;
  cliEntry: string;
  portFree: PortProbe;
  cardServed: CardProbe;
  /** Who holds a taken port (the scenario's pid file, /proc), for advice that matches how it was started. */
  portHolder: PortHolderProbe;
  smoke: (options: SmokeOptions, out: Writable) => Promise<SmokeResult>;
}

/** Real probes (loaded lazily: the benchmark manager and sandbox are heavy). */
export async function defaultPreflightDeps(env: NodeJS.ProcessEnv = process.env): Promise<PreflightDeps> {
  const probes = await import("./default-probes.js");
  return {
    nodeVersion: process.version,
    env,
    loadDataset: probes.loadDatasetItems,
    probeSandbox: probes.probeSandbox,
    probeTools: probes.toolProber(env),
    probeParticipant: probes.probeParticipant,
    knownBenchmarks: probes.knownBenchmarks,
    resolveCommand: (p) => resolveCommand(p, env),
    cliEntry,
    portFree: isPortFree,
    cardServed: async (url) => (await fetchCard(url, 1_000)) !== undefined,
    portHolder: portHolderProbe(),
    smoke: runSmoke,
  };
}

export interface PreflightReport {
  results: CheckResult[];
  ready: boolean;
}

/** Indent every line a child writes (smoke output under its check). */
function indented(out: Writable): Writable {
  let atLineStart = true;
  return new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      let res = "";
      for (const ch of chunk.toString()) {
        if (atLineStart) res += "    | ";
        res += ch;
        atLineStart = ch === "\n";
      }
      out.write(res, () => cb());
    },
  });
}

/** Run every check in order, printing each verdict as it comes. */
export async function runPreflight(
  options: PreflightOptions,
  deps: PreflightDeps,
  stdout: Writable,
): Promise<PreflightReport> {
  const results: CheckResult[] = [];
  const report = (r: CheckResult): void => {
    results.push(r);
    stdout.write(renderCheck(r).join("\n") + "\n");
  };

  report(checkNode(deps.nodeVersion));
  report(await checkDataset(options.benchmark, options.dataset, deps.loadDataset));
  report(await checkSandbox(options.sandbox, deps.env, deps.probeSandbox, options.allowWeakIsolation === true));
  report(await checkTools(options.benchmark, options.sandbox, deps.probeTools));
  report(checkSandboxEnv(options.sandbox, deps.env));
  report(
    checkRunner(options.benchmark, deps.env, {
      cliEntry: deps.cliEntry,
      known: deps.knownBenchmarks,
      resolve: deps.resolveCommand,
    }),
  );
  report(await checkParticipant(options.agent, deps.probeParticipant));

  let scenario;
  try {
    scenario = loadScenario(options.scenarioDir);
  } catch (err) {
    report(
      fail(
        "ports",
        `scenario unusable: ${errorMessage(err)}`,
        "fix scenario.toml (the message names file, key and line)",
      ),
    );
    report(fail("smoke", "not run: no scenario", "fix the scenario first"));
    return finish(results, stdout);
  }
  const ports = await checkPorts(scenario.agents, deps.portFree, deps.cardServed, async (a) =>
    portAdvice(await deps.portHolder(scenario.dir, a.port), `${a.host}:${a.port}`, scenario.dir),
  );
  report(ports.result);
  if (ports.mode === "blocked") {
    report(fail("smoke", "not run: ports blocked", "clear the ports (see above), then run preflight again"));
    return finish(results, stdout);
  }
  stdout.write(
    `… smoke: one ${options.benchmark} assessment of ${options.smokeSamples} sample item(s)${ports.mode === "free" ? ", starting the scenario" : " against the running agents"}\n`,
  );
  try {
    const smoke = await deps.smoke(
      {
        scenarioDir: scenario.file,
        start: ports.mode === "free",
        benchmark: options.benchmark,
        samples: options.smokeSamples,
        logLevel: options.logLevel,
      },
      indented(stdout),
    );
    report(
      smoke.exitCode === 0
        ? pass("smoke", `valid bundle from a completed task (${smoke.bundlePath ?? "?"})`)
        : fail(
            "smoke",
            `failed: ${smoke.problems.join("; ")}`,
            `inspect ${smoke.responsePath ?? "the response"} and the agent logs next to it; \`a2a-bench smoke --start\` reproduces it`,
          ),
    );
  } catch (err) {
    report(
      fail("smoke", `could not run: ${errorMessage(err)}`, "run `a2a-bench smoke --start` to see the whole output"),
    );
  }
  return finish(results, stdout);
}

function finish(results: CheckResult[], stdout: Writable): PreflightReport {
  const ready = results.every((r) => r.ok);
  stdout.write(`ready_for_full_run=${ready}\n`);
  return { results, ready };
}
