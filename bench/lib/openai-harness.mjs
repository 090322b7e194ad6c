/**
 * OpenAI's human-eval harness as a baseline: the operator's checkout at
 * `$HUMAN_EVAL_DIR` (its exec line enabled, as its README says) run with
 * `$HUMAN_EVAL_PYTHON` (default /usr/bin/python3). Its `check_correctness`
 * starts, per completion, a `multiprocessing.Manager()` server process and a
 * `multiprocessing.Process` for the program (fork on Linux), from 4 threads of
 * one ThreadPoolExecutor (`n_workers=4`): a process per program, threads only
 * for dispatch.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The checkout and python, or `{absent: why}`. */
export function openAiHarnessSetup(env = process.env) {
  const dir = env.HUMAN_EVAL_DIR;
  const python = env.HUMAN_EVAL_PYTHON ?? "/usr/bin/python3";
  if (!dir) return { absent: "HUMAN_EVAL_DIR not set" };
  const exe = join(dir, "human_eval", "execution.py");
  if (!existsSync(exe)) return { absent: `${exe} not found` };
  if (!/^\s+exec\(check_program, exec_globals\)/m.test(readFileSync(exe, "utf8")))
    return { absent: `exec line of ${exe} not enabled` };
  if (!existsSync(python)) return { absent: `${python} not found` };
  return { dir, python };
}

/**
 * The command of `evaluate_functional_correctness` on `samples` against `problemFile` with `k` (a list of
 * numbers): file, argv and the environment additions. Fire reads `--k=1,10` as a tuple; quoted, it stays the
 * string the harness splits. The harness writes `<samples>_results.jsonl.gz` beside the samples.
 */
export function openAiHarnessCommand(setup, samples, problemFile, k) {
  return {
    file: setup.python,
    args: [
      join(setup.dir, "human_eval", "evaluate_functional_correctness.py"),
      samples,
      `--problem_file=${problemFile}`,
      `--k="${k.join(",")}"`,
    ],
    env: { PYTHONPATH: setup.dir },
  };
}
