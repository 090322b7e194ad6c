/**
 * The `gold` mode's interactive episode: do what a perfect participant
 * would, through commands, so a gold run of an interactive assessment checks
 * the green's environment and grader rather than a model.
 *
 * What a perfect participant does is its benchmark's (the descriptor's
 * `goldEpisode`: files to write, a patch to apply, the final output); here
 * each step becomes shell commands: a patch is fed to `git apply` by a quoted
 * heredoc in the task's workdir (one too long for one command is written to a
 * file in several first, shell-text.ts), a file is written in chunks. Then
 * `final`, whatever the exit code (the grader decides).
 *
 * A task that names no benchmark and no instance (RDI's Terminal-Bench green
 * sends only the instruction) is identified by its instruction among the
 * datasets the purple knows (gold-identify.ts). When no reference answer can
 * be had (no single instance matches, an unknown benchmark or id), the episode
 * ends at once with a `final` whose output says why, starting
 * {@link GOLD_CANNOT}: a clear 0, never a silent wrong answer.
 *
 * The reference answers come from the same lookups as single-shot gold.
 */
import type { Episode, EpisodeStart, EpisodeStep } from "../interactive/episode.js";
import { finalStep } from "../interactive/episode.js";
import type { ExecResultMessage, TaskMessage } from "../../interactive/protocol.js";
import { randomBytes } from "node:crypto";
import {
  COMMAND_BUDGET_BYTES,
  commandBytes,
  inDir,
  shellQuote,
  withHeredoc,
  writeFileCommands,
} from "../interactive/shell-text.js";
import { GoldError, type GoldContext, type GoldStep } from "../../benchmarks/gold.js";
import { benchmarkDescriptors, findBenchmark } from "../../benchmarks/index.js";
import { BenchError } from "../../util/errors.js";
import { identifyByInstruction } from "./gold-identify.js";

/** How the output of a gold episode that has no reference answer starts. */
export const GOLD_CANNOT = "gold: no reference answer:";

export { HUMANEVAL_SOLUTION_FILE } from "../../benchmarks/humaneval/gold.js";

/** The commands of an episode, and its `final` once the last has run (or one has failed). */
interface Plan {
  /** What the commands do, for the final output. */
  what: string;
  commands: string[];
  /** The final output when every command succeeded; default `<what>: done`. */
  output?: string;
}

const succeeded = (r: ExecResultMessage): boolean => r.exit_code === 0 && r.timed_out !== true;

/** The gold patch applied by `git apply`: fed by one heredoc, or written to a file first when that is too long. */
function applyPatch(patch: string, workdir: string | undefined): string[] {
  const single = inDir(workdir, withHeredoc("git apply --verbose", patch));
  if (commandBytes(single) <= COMMAND_BUDGET_BYTES) return [single];
  const file = `/tmp/a2a-bench-gold-${randomBytes(8).toString("hex")}.patch`;
  const apply = `git apply --verbose ${shellQuote(file)}; s=$?; rm -f ${shellQuote(file)}; exit $s`;
  return [...writeFileCommands(file, patch), inDir(workdir, apply)];
}

/** The task's benchmark and instance: as it names them, else identified by its instruction. */
async function instanceOf(task: TaskMessage, ctx: GoldContext): Promise<{ benchmark: string; id: string }> {
  if (task.benchmark === undefined && task.instance_id === undefined) {
    const got = await identifyByInstruction(task.instruction, ctx);
    if ("problem" in got)
      throw new GoldError(`the task names no benchmark or instance, and it cannot be identified: ${got.problem}`);
    return { benchmark: got.found.benchmark, id: got.found.instance_id };
  }
  if (task.benchmark === undefined)
    throw new GoldError("the interactive task names no benchmark (`benchmark` in the task message)");
  if (task.instance_id === undefined) throw new GoldError(`the ${task.benchmark} task names no \`instance_id\``);
  return { benchmark: task.benchmark, id: task.instance_id };
}

/** The shell commands of one gold step, in the task's workdir. */
function commandsOf(step: GoldStep, workdir: string | undefined): string[] {
  switch (step.kind) {
    case "apply_patch":
      return applyPatch(step.patch, workdir);
    case "write_file":
      return writeFileCommands(step.path, step.content).map((c) => inDir(workdir, c));
    case "run":
      return [inDir(workdir, step.command)];
  }
}

/** The task's plan, from its benchmark's descriptor (`goldEpisode`). */
async function plan(task: TaskMessage, ctx: GoldContext, how: EpisodeStart): Promise<Plan> {
  const { benchmark, id } = await instanceOf(task, ctx);
  const planner = findBenchmark(benchmark)?.goldEpisode;
  if (!planner) {
    const known = benchmarkDescriptors().filter((d) => d.goldEpisode !== undefined);
    throw new GoldError(
      `no interactive gold answers for benchmark "${benchmark}" (known: ${known.map((d) => d.name).join(", ")})`,
    );
  }
  const gold = await (await planner())({ id, finalPatch: how.finalPatch === true }, ctx);
  const commands = gold.steps.flatMap((s) => commandsOf(s, task.workdir));
  return gold.output === undefined ? { what: gold.what, commands } : { what: gold.what, commands, output: gold.output };
}

/** A fresh gold episode: its commands in order, then `final` (at once when one fails: the grader decides). */
export function goldEpisode(ctx: GoldContext): Episode {
  let current: Plan | undefined;
  let sent = 0;
  const exec = (p: Plan): EpisodeStep => ({ action: { kind: "exec_request", command: p.commands[sent++]! } });
  return {
    async start(task, _signal, how = {}) {
      try {
        current = await plan(task, ctx, how);
      } catch (err) {
        if (!(err instanceof GoldError) && !(err instanceof BenchError && err.code === "E_GOLD")) throw err;
        current = undefined;
        return finalStep(`${GOLD_CANNOT} ${err.message}`, { gold_error: err.message });
      }
      sent = 0;
      if (current.commands.length === 0) return finalStep(current.output ?? `${current.what}: done`);
      return exec(current);
    },
    next(result) {
      const p = current;
      if (!p) return Promise.resolve(finalStep());
      if (succeeded(result) && sent < p.commands.length) return Promise.resolve(exec(p));
      current = undefined;
      const meta = { gold_command_exit_code: result.exit_code, gold_commands: sent };
      if (!succeeded(result)) {
        const where = p.commands.length > 1 ? ` at command ${sent} of ${p.commands.length}` : "";
        return Promise.resolve(finalStep(`${p.what}: failed${where} (exit ${result.exit_code})`, meta));
      }
      return Promise.resolve(finalStep(p.output ?? `${p.what}: done`, meta));
    },
  };
}
