/**
 * Which program the green agent starts for a request. The request chooses
 * only the benchmark; the program comes from the operator: our own CLI
 * (`a2a-bench run <benchmark>`) or, for `smi-inhabit`, the command in env
 * GREEN_SMI_INHABIT_COMMAND (default `smi-inhabit` on PATH).
 *
 * The resolved config crosses the process boundary once, as the config file:
 * the built-in runner reads its run id, defaults and participant there, so the
 * command line carries none of them again.
 */
import { join } from "node:path";
import { isExternalBenchmark as isExternalRunner } from "../benchmarks/index.js";
import type { ResolvedConfig } from "../request-config/config.js";
import { cliEntry } from "../util/package-root.js";

export interface RunnerContext {
  /** The task's work dir (also the runner's cwd and `--out`). */
  workDir: string;
  /** `<workDir>/config.json`: the resolved config (the participant under test is its `agent`). */
  configPath: string;
  /** Refuse to run below full sandbox isolation (the operator did not opt in to less). */
  requireFullIsolation: boolean;
}

export interface RunnerCommand {
  command: string;
  args: string[];
}

/** Builds the runner command line for a request. Injectable in createGreenApp (tests use fixture runners). */
export type RunnerCommandFn = (config: ResolvedConfig, ctx: RunnerContext) => RunnerCommand;

/** Default external program for `benchmark: "smi-inhabit"`. */
export const DEFAULT_SMI_INHABIT_COMMAND = "smi-inhabit";

/**
 * The built-in runner: `<node> <entry> run <benchmark> --config-file
 * <workDir>/config.json --out <workDir> [--require-full-isolation]`. The config file is the resolved config, run id and
 * participant (`agent`) included; the runner checks it once and changes nothing.
 */
export function builtinRunnerCommand(entry: string = cliEntry, execPath: string = process.execPath): RunnerCommandFn {
  return (config, ctx) => ({
    command: execPath,
    args: [
      entry,
      "run",
      config.benchmark,
      "--events", // stdout: the A2A_EVENT protocol the supervisor reads (piped, it would be lines for people)
      "--config-file",
      ctx.configPath,
      "--out",
      ctx.workDir,
      ...(ctx.requireFullIsolation ? ["--require-full-isolation"] : []),
    ],
  });
}

/** smi_bench's `smi-inhabit` flags; results JSON goes to `<workDir>/results.json`. */
export function smiInhabitCommand(program: string): RunnerCommandFn {
  return (config, ctx) => {
    const args: string[] = [];
    const add = (flag: string, value: string | number | undefined | null) => {
      if (value !== undefined && value !== null) args.push(flag, String(value));
    };
    add("--corpus-root", config.corpus_root);
    add("--package-ids-file", config.package_ids_file);
    add("--agent", config.agent);
    add("--rpc-url", config.rpc_url);
    add("--simulation-mode", config.simulation_mode);
    add("--per-package-timeout-seconds", config.per_package_timeout_seconds);
    add("--max-plan-attempts", config.max_plan_attempts);
    add("--out", join(ctx.workDir, "results.json"));
    add("--run-id", config.run_id);
    add("--samples", config.samples); // resolved: `num_instances` already copied into it
    return { command: program, args };
  };
}

/** Default dispatch: smi-inhabit → the operator's external command; everything else → built-in runner. */
export function defaultRunnerCommand(env: NodeJS.ProcessEnv, entry: string = cliEntry): RunnerCommandFn {
  const builtin = builtinRunnerCommand(entry);
  const smi = smiInhabitCommand(env["GREEN_SMI_INHABIT_COMMAND"] || DEFAULT_SMI_INHABIT_COMMAND);
  return (config, ctx) => (config.benchmark === "smi-inhabit" ? smi(config, ctx) : builtin(config, ctx));
}

/** Whether a runner writes its own events.jsonl and run_metadata.json (external ones may not). */
export function isExternalBenchmark(config: { benchmark: string }): boolean {
  return isExternalRunner(config.benchmark);
}
