/**
 * The `gold` mode's interactive episode: do what a perfect participant
 * would, through commands, so a gold run of an interactive assessment checks
 * the green's environment and grader rather than a model.
 *
 * - SWE-bench (`benchmark: "swebench"`, `instance_id`): `git apply` the
 *   instance's gold patch, fed by a quoted heredoc, in the task's workdir;
 *   then `final`, whatever the exit code (the grader decides).
 * - HumanEval (`benchmark: "humaneval"`, `instance_id` = the task id): write
 *   the prompt and canonical solution to `solution.py`, then `final` with the
 *   single-shot gold answer (the canonical body in a python fence) as output.
 *
 * The reference answers come from the same lookups as single-shot gold.
 */
import type { Episode, EpisodeStep } from "../interactive/episode.js";
import { finalStep } from "../interactive/episode.js";
import type { ExecResultMessage, TaskMessage } from "../../interactive/protocol.js";
import { inDir, withHeredoc } from "../interactive/heredoc.js";
import { goldPatchFor } from "../../benchmarks/swebench/gold-lookup.js";
import { GoldError, humanEvalGoldText, humanEvalProblem, type GoldContext } from "./gold.js";

/** Where the HumanEval gold episode writes its solution (relative to the green's working directory). */
export const HUMANEVAL_SOLUTION_FILE = "solution.py";

/** What the episode does once its one command has run. */
type Finish = (result: ExecResultMessage) => EpisodeStep;

function outcome(what: string, result: ExecResultMessage, output: string | undefined): EpisodeStep {
  const ok = result.exit_code === 0 && result.timed_out !== true;
  return finalStep(output ?? (ok ? `${what}: done` : `${what}: failed (exit ${result.exit_code})`), {
    gold_command_exit_code: result.exit_code,
  });
}

async function plan(task: TaskMessage, ctx: GoldContext): Promise<{ command: string; finish: Finish }> {
  const id = task.instance_id;
  if (task.benchmark === undefined)
    throw new GoldError("the interactive task names no benchmark (`benchmark` in the task message)");
  if (id === undefined) throw new GoldError(`the ${task.benchmark} task names no \`instance_id\``);
  switch (task.benchmark) {
    case "swebench": {
      const patch = await goldPatchFor(id, ctx.datasets);
      return {
        command: inDir(task.workdir, withHeredoc("git apply --verbose", patch)),
        finish: (r) => outcome("git apply of the gold patch", r, undefined),
      };
    }
    case "humaneval": {
      const problem = await humanEvalProblem(id, undefined, ctx);
      const code = problem.prompt + problem.canonical_solution;
      return {
        command: inDir(task.workdir, withHeredoc(`cat > ${HUMANEVAL_SOLUTION_FILE}`, code)),
        finish: (r) => outcome(`writing ${HUMANEVAL_SOLUTION_FILE}`, r, humanEvalGoldText(problem)),
      };
    }
    default:
      throw new GoldError(`no interactive gold answers for benchmark "${task.benchmark}" (known: humaneval, swebench)`);
  }
}

/** A fresh gold episode: one command, then `final`. */
export function goldEpisode(ctx: GoldContext): Episode {
  let finish: Finish | undefined;
  return {
    async start(task) {
      const p = await plan(task, ctx);
      finish = p.finish;
      return { action: { kind: "exec_request", command: p.command } };
    },
    next(result) {
      const step = finish ? finish(result) : finalStep();
      finish = undefined;
      return Promise.resolve(step);
    },
  };
}
