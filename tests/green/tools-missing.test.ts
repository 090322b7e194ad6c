/**
 * pytest absent → an error, never a score: the green agent runs SWE-bench's
 * embedded set against a gold purple agent (every patch right), with a PATH
 * whose python3 is a virtual environment without pytest. Every item fails on
 * our side, so the runner ends `status: "error"` (exit 3) and the task
 * `failed` with the reason. Needs `npm run build`.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { partData, partText } from "../../src/a2a/shared/parts.js";
import { builtinRunnerCommand } from "../../src/green/runner-command.js";
import { createPurpleApp } from "../../src/purple/app.js";
import { createGoldSolver } from "../../src/purple/solvers/gold.js";
import { cliEntry, packageRoot } from "../../src/util/package-root.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { TMPFS_TOPS } from "../../src/sandbox/local/launch-command.js";
import { requestOf, startGreen, type StartedGreen } from "./helpers.js";

let scratch: string;
let cache: string;
let purple: Awaited<ReturnType<typeof serveOnLoopback>>;
let green: StartedGreen;
beforeAll(async () => {
  if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
  // Not below the sandbox's own tmpfs mounts (/tmp, /root, ...): an interpreter there would be invisible inside
  // it and the sandbox's PATH would fall through to the system python3 (which has pytest). The package's
  // git-ignored .cache/ unless the checkout itself lies below one of them (a clone in /tmp), then /var/lib.
  const base = [join(packageRoot, ".cache"), "/var/lib"].find(
    (d) => !TMPFS_TOPS.some((t) => d === t || d.startsWith(t + "/")),
  );
  if (!base) throw new Error("no directory outside the sandbox's tmpfs mounts for the stand-in interpreter");
  await mkdir(base, { recursive: true });
  scratch = await mkdtemp(join(base, "a2a-bench-tools-missing-"));
  await chmod(scratch, 0o755);
  const venv = join(scratch, "venv");
  // --copies: the environment's own interpreter, not a symlink back to one that has pytest.
  execFileSync("python3", ["-m", "venv", "--copies", "--without-pip", venv]);
  cache = await mkdtemp(join(tmpdir(), "tools-missing-cache-"));
  process.env["A2A_BENCH_CACHE_DIR"] = cache;
  purple = await serveOnLoopback((card) => createPurpleApp({ card, solver: createGoldSolver() }));
  const resultsRoot = join(scratch, "results");
  await mkdir(resultsRoot);
  const env = {
    ...process.env,
    A2A_BENCH_CACHE_DIR: cache,
    PATH: `${join(venv, "bin")}${delimiter}${process.env["PATH"] ?? ""}`,
  };
  green = await startGreen(builtinRunnerCommand(), { resultsRoot }, env);
});
afterAll(async () => {
  await green?.close();
  await purple?.close();
  delete process.env["A2A_BENCH_CACHE_DIR"];
  await rm(cache, { recursive: true, force: true });
  await rm(scratch, { recursive: true, force: true });
});

test(
  "SWE-bench with pytest absent → task failed with the reason (no module named pytest), bundle status error, exit 3",
  { timeout: 120_000 },
  async () => {
    const client = await createA2AClient(green.url);
    const body = {
      participants: { agent: purple.url },
      config: {
        benchmark: "swebench",
        dataset: "sample",
        samples: 2,
        per_task_timeout_seconds: 60,
        run_id: "no-pytest",
      },
    };
    const task = (await client.sendMessage(requestOf(body))) as Task;
    const text = (task.status?.message?.parts ?? []).map(partText).filter(Boolean).join(" ");
    expect(task.status?.state, text).toBe(TaskState.TASK_STATE_FAILED);
    expect(text).toMatch(
      /every item \(2\) failed for infrastructure reasons.*No module named '?pytest'?.*install pytest/,
    );
    const b = partData(task.artifacts.find((a) => a.name === "evaluation_bundle")!.parts[0]!)!;
    expect(b).toMatchObject({ status: "error", exit_code: 3 });
    expect((b["metrics"] as { failure_modes: Record<string, number> }).failure_modes).toMatchObject({
      infrastructure_tool_missing: 2,
    });
  },
);
