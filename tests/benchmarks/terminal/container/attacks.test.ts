/**
 * The terminal benchmark attacked from inside the task's environment, as a participant's commands would: a
 * score for work not done (the verifier's own tools shadowed where the tamper check does not look), and a run
 * voided (the environment left unable to run the harness's next command, so the verdict becomes our error).
 * Needs A2A_BENCH_REQUIRE_CONTAINER_ENGINE=1 and DOCKER_HOST; skipped otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createDockerSandbox } from "../../../../src/sandbox/docker/docker-sandbox.js";
import { DEFAULT_LIMITS } from "../../../../src/sandbox/limits.js";
import { silentLogger } from "../../../../src/util/logger.js";
import { createPurpleApp } from "../../../../src/purple/app.js";
import type { Solver, SolverInput, SolverReply } from "../../../../src/purple/solver.js";
import type { ServedApp } from "../../../../src/a2a/server/serve.js";
import { runBenchmark } from "../../../../src/library/run-benchmark.js";
import type { AssessmentConfig } from "../../../../src/request-config/config.js";
import { OWNER_LABEL } from "../../../../src/sandbox/docker/owner.js";
import { serveOnLoopback } from "../../../a2a/helpers.js";
import { BASE_IMAGE, containersLabelled, testEngine } from "../../../support/container-engine.js";
import type { TerminalRow } from "../../../../src/benchmarks/terminal/row.js";

const engine = await testEngine();
const BASE_IMAGES = { "ubuntu:24.04": BASE_IMAGE };

/** Answers each turn with the next command, then `final`. */
class CommandSolver implements Solver {
  readonly mode = "scripted";
  private turn = 0;
  constructor(private readonly commands: string[]) {}
  solve(_input: SolverInput): Promise<SolverReply> {
    const command = this.commands[this.turn++];
    return Promise.resolve({
      text: JSON.stringify(command === undefined ? { kind: "final" } : { kind: "exec_request", command }),
    });
  }
}

/**
 * A fake `pytest` package in python's per-user site directory (`~/.local/lib/pythonX.Y/site-packages`, on
 * sys.path before the system's dist-packages for root with HOME=/root, as the verifier runs): `python3 -m
 * pytest` runs it; it writes a junit report of three passed tests and exits 0. No work on the task is done.
 */
const FAKE_PYTEST = String.raw`d="$(python3 -c 'import site; print(site.getusersitepackages())')/pytest" && mkdir -p "$d" && : > "$d/__init__.py" && printf '%s\n' 'import sys' 'for a in sys.argv:' '    if a.startswith("--junitxml="):' '        open(a.split("=", 1)[1], "w").write("<testsuite tests=\"3\" failures=\"0\" errors=\"0\"></testsuite>")' 'sys.exit(0)' > "$d/__main__.py" && python3 -m pytest -q --junitxml=/tmp/x.xml && cat /tmp/x.xml`;

/**
 * The same fake `pytest`, added (not changed) in the system's /usr/local dist-packages, which python searches
 * before /usr/lib/python3/dist-packages where the image's pytest is: an added file under /usr is flagged only
 * as a start-up hook, a PATH program shadowing another or a loader file.
 */
const FAKE_PYTEST_SYSTEM = FAKE_PYTEST.replace(
  "site.getusersitepackages()",
  '[p for p in site.getsitepackages() if p.startswith("/usr/local/")][0]',
);

/**
 * A process left behind that takes every free process slot of the container, for ever (bash retries a failed
 * fork): the harness's own next commands in the environment (ending processes, the tamper check, installing
 * the tests) need a process slot too.
 */
const PID_HOG = String.raw`setsid -f bash -c 'while :; do sleep 100000 & done' </dev/null >/dev/null 2>&1; sleep 20; echo left`;

/**
 * The container's main process is bash waiting on its stdin (the harness's keepalive pipe). /proc/1/fd/0 of
 * a pipe opens like a FIFO, for writing too: one line there ends `read`, bash exits, and the container stops
 * under the harness, whose next command in it then fails as the engine's, not the participant's.
 */
const END_INIT = "echo > /proc/1/fd/0";

/**
 * Fills the private /tmp (a tmpfs, its pages charged to the container's memory) up to the container's memory:
 * what the harness and the verifier run next has no memory left.
 */
const FILL_MEMORY = "head -c 400M /dev/zero > /tmp/fill; ls -l /tmp/fill; echo filled";

/** A task of 256 MB whose verifier is python (writes reward 1 when /app/done exists). */
async function writeSmallTask(dir: string): Promise<void> {
  for (const d of ["environment", "tests"]) await mkdir(join(dir, d), { recursive: true });
  await writeFile(
    join(dir, "task.toml"),
    "[agent]\ntimeout_sec = 120.0\n\n[verifier]\ntimeout_sec = 60.0\n\n[environment]\nmemory_mb = 256\nstorage_mb = 512\nallow_internet = false\n",
  );
  await writeFile(join(dir, "instruction.md"), "Create the file /app/done.\n");
  await writeFile(join(dir, "environment", "Dockerfile"), `FROM ${BASE_IMAGE}\nWORKDIR /app\n`);
  await writeFile(
    join(dir, "tests", "test.sh"),
    '#!/bin/bash\npython3 -c \'import os; open("/logs/verifier/reward.txt", "w").write("1" if os.path.exists("/app/done") else "0")\'\n',
  );
  await chmod(join(dir, "tests", "test.sh"), 0o755);
}

let root: string;
const served: ServedApp[] = [];

describe.skipIf(engine.env === null)(
  `terminal tasks attacked from inside the environment${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    const env = engine.env!;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "a2a-terminal-attack-"));
    });
    afterAll(async () => {
      await Promise.all(served.map((s) => s.close()));
      await rm(root, { recursive: true, force: true });
    });

    async function run(solver: Solver, task: string, extra: Partial<AssessmentConfig> = {}) {
      const dataset = task.startsWith("/") ? task : join(process.cwd(), "terminal-tasks", task);
      const purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
      served.push(purple);
      const runId = `term-${randomBytes(4).toString("hex")}`;
      const result = await runBenchmark(
        {
          benchmark: "terminal",
          run_id: runId,
          dataset,
          sandbox: "docker",
          agent: purple.url,
          concurrency: 1,
          command_timeout_seconds: 120,
          terminal_base_images: BASE_IMAGES,
          ...extra,
        },
        {
          out: join(root, runId),
          createSandbox: () => createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env }),
        },
      );
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
      return result.results.rows as TerminalRow[];
    }

    // The verifier runs with a fresh HOME and PYTHONNOUSERSITE=1 (the real pytest runs), and a file added where
    // python imports from is flagged: 0.
    it("a fake pytest in python's per-user site directory does not score the pytest task (reward 0 or flagged)", async () => {
      const rows = await run(new CommandSolver([FAKE_PYTEST]), "reward-json");
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.verifier_output ?? "", JSON.stringify(row)).not.toContain("3 passed"); // the real pytest never ran
      expect(row, JSON.stringify(row)).toMatchObject({
        status: "failed",
        reward: 0,
        failure_mode: "model_tampered_with_verifier",
      });
      expect(row.tampered?.join("\n")).toMatch(/^A \/root\/\.local\/lib\/python[^/]+\/site-packages\/pytest\//m);
    }, 600_000);

    // An added file under /usr/local/lib/python3.X/dist-packages (an import root) is flagged: 0.
    it("a fake pytest added to the system's /usr/local dist-packages does not score the pytest task (reward 0 or flagged)", async () => {
      const rows = await run(new CommandSolver([FAKE_PYTEST_SYSTEM]), "reward-json");
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row, JSON.stringify(row)).toMatchObject({
        status: "failed",
        reward: 0,
        failure_mode: "model_tampered_with_verifier",
      });
      expect(row.tampered?.join("\n")).toMatch(/^A \/usr\/local\/lib\/python[^/]+\/dist-packages\/pytest\//m);
    }, 600_000);

    it("a process left to take every process slot is the participant's failure, never an infrastructure error", async () => {
      const rows = await run(new CommandSolver([PID_HOG]), "write-file");
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.status, JSON.stringify(row)).toBe("failed");
      expect(row.reward).toBe(0);
      expect(row.failure_mode ?? "").not.toMatch(/^infrastructure_/);
    }, 600_000);

    // The container's main process reads its stdin to the end: a line written into it ends nothing, the
    // episode goes on and the verdict is the verifier's (no /app/done: 0).
    it("ending the container's main process as the last command is the participant's failure, never an infrastructure error", async () => {
      const rows = await run(new CommandSolver([END_INIT]), "write-file");
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.failure_mode ?? "", JSON.stringify(row)).not.toMatch(/^infrastructure_/);
      expect(row).toMatchObject({ status: "failed", reward: 0 });
    }, 600_000);

    // The same in the middle of the episode: the next command still runs.
    it("ending the container's main process mid-episode is the participant's failure, never an infrastructure error", async () => {
      const rows = await run(new CommandSolver([END_INIT, "echo still here"]), "write-file");
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.failure_mode ?? "", JSON.stringify(row)).not.toMatch(/^infrastructure_/);
      expect(row).toMatchObject({ status: "failed", reward: 0 });
    }, 600_000);

    // The private /tmp is a tmpfs charged to the container's memory and outlives the episode's processes: a
    // harness step killed there (exit 137), or the container gone, while the engine answers is the participant's.
    it("a /tmp filled up to the container's memory is the participant's failure, never an infrastructure error", async () => {
      const dir = join(root, "small-task");
      await writeSmallTask(dir);
      const rows = await run(new CommandSolver([FILL_MEMORY]), dir);
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.failure_mode ?? "", JSON.stringify(row)).not.toMatch(/^infrastructure_/);
      expect(row).toMatchObject({ status: "failed", reward: 0 });
    }, 600_000);
  },
);
