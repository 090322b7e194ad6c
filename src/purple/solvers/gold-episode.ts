/**
 * The `gold` mode's interactive episode: do what a perfect participant
 * would, through commands, so a gold run of an interactive assessment checks
 * the green's environment and grader rather than a model.
 *
 * - SWE-bench (`benchmark: "swebench"`, `instance_id`): `git apply` the
 *   instance's gold patch, fed by a quoted heredoc, in the task's workdir (a
 *   patch too long for one command is written to a file in several first,
 *   shell-text.ts); then `final`, whatever the exit code (the grader decides).
 *   For a green that takes the change from the final answer (AgentSWE), the
 *   gold patch is the final's output at once.
 * - HumanEval (`benchmark: "humaneval"`, `instance_id` = the task id): write
 *   the prompt and canonical solution to `solution.py`, then `final` with the
 *   single-shot gold answer (the canonical body in a python fence) as output.
 *
 * - Terminal (`benchmark: "terminal"`, `instance_id` = the task directory's
 *   name): the task's `solution/` files written to `/solution`, then
 *   `bash /solution/solve.sh` in the environment's working directory.
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
import { goldPatchFor } from "../../benchmarks/swebench/gold-lookup.js";
import { GoldError, type GoldContext } from "../../benchmarks/gold.js";
import { BenchError } from "../../util/errors.js";
import { humanEvalGoldText, humanEvalProblem } from "../../benchmarks/humaneval/gold.js";
import { identifyByInstruction } from "./gold-identify.js";
import { SOLUTION_DIR, solutionFiles } from "../../benchmarks/terminal/gold.js";

/** How the output of a gold episode that has no reference answer starts. */
export const GOLD_CANNOT = "gold: no reference answer:";

/** Where the HumanEval gold episode writes its solution (relative to the green's working directory). */
export const HUMANEVAL_SOLUTION_FILE = "solution.py";

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

async function plan(task: TaskMessage, ctx: GoldContext, how: EpisodeStart): Promise<Plan> {
  const { benchmark, id } = await instanceOf(task, ctx);
  switch (benchmark) {
    case "swebench": {
      const patch = await goldPatchFor(id, ctx.datasets);
      // A green that takes the change from the final answer (AgentSWE) gets the patch there.
      if (how.finalPatch) return { what: "the gold patch", commands: [], output: patch };
      return { what: "git apply of the gold patch", commands: applyPatch(patch, task.workdir) };
    }
    case "humaneval": {
      const problem = await humanEvalProblem(id, undefined, ctx);
      const code = problem.prompt + problem.canonical_solution;
      return {
        what: `writing ${HUMANEVAL_SOLUTION_FILE}`,
        commands: writeFileCommands(HUMANEVAL_SOLUTION_FILE, code).map((c) => inDir(task.workdir, c)),
        output: humanEvalGoldText(problem),
      };
    }
    case "terminal": {
      const files = await solutionFiles(id, ctx);
      const dirs = [...new Set(Object.keys(files).map((f) => `${SOLUTION_DIR}/${f}`.replace(/\/[^/]*$/, "")))];
      return {
        what: "solution/solve.sh",
        commands: [
          `rm -rf ${SOLUTION_DIR} && mkdir -p ${dirs.map(shellQuote).join(" ")}`,
          ...Object.entries(files).flatMap(([f, text]) => writeFileCommands(`${SOLUTION_DIR}/${f}`, text)),
          `bash ${SOLUTION_DIR}/solve.sh`,
        ],
      };
    }
    default:
      throw new GoldError(
        `no interactive gold answers for benchmark "${benchmark}" (known: humaneval, swebench, terminal)`,
      );
  }
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
