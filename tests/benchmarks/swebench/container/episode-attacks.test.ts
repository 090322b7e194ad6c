/**
 * SWE-bench interactive on the docker backend, attacked: a REAL A2A participant on loopback (the
 * purple app with a scripted Solver) abuses its environment, hides, forges and breaks things, and the
 * harness is cancelled under it. Each attack must end bounded, scored as the participant's (never an
 * infrastructure error that voids the item), with no container and no docker client left.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { createSwebenchBenchmark } from "../../../../src/benchmarks/swebench/definition.js";
import { ensureSampleDataset, type SampleDataset } from "../../../../src/benchmarks/swebench/sample-dataset.js";
import {
  buildSampleImages,
  SAMPLE_IMAGE_TEMPLATE,
} from "../../../../src/benchmarks/swebench/container/sample-images.js";
import type { SwebenchInstance } from "../../../../src/benchmarks/swebench/instance.js";
import type { RunOptions } from "../../../../src/runner/options.js";
import { testRunOptions } from "../../../support/run-options.js";
import { OWNER_LABEL } from "../../../../src/sandbox/docker/owner.js";
import { createDockerSandbox, type DockerSandbox } from "../../../../src/sandbox/docker/docker-sandbox.js";
import { DEFAULT_LIMITS } from "../../../../src/sandbox/limits.js";
import { silentLogger } from "../../../../src/util/logger.js";
import { createPurpleApp } from "../../../../src/purple/app.js";
import type { Solver, SolverInput, SolverReply } from "../../../../src/purple/solver.js";
import type { ServedApp } from "../../../../src/a2a/server/serve.js";
import { runBenchmark } from "../../../../src/library/run-benchmark.js";
import { serveOnLoopback } from "../../../a2a/helpers.js";
import { containersLabelled, testEngine } from "../../../support/container-engine.js";

const engine = await testEngine();

interface ExecResult {
  kind: string;
  exit_code: number | null;
  stdout: string;
  stderr: string;
  timed_out?: boolean;
}

/** Answers each turn with the next command (or what `next` makes of the last message), then `final`. */
class CommandSolver implements Solver {
  readonly mode = "scripted";
  readonly seen: string[] = [];
  constructor(private readonly commands: string[]) {}
  solve(input: SolverInput): Promise<SolverReply> {
    this.seen.push(input.text);
    const command = this.commands[this.seen.length - 1];
    return Promise.resolve({
      text: JSON.stringify(command === undefined ? { kind: "final" } : { kind: "exec_request", command }),
    });
  }
  results(): ExecResult[] {
    return this.seen.slice(1).map((t) => JSON.parse(t) as ExecResult);
  }
}

/** Lines of host processes whose command line holds `needle` (this test's own `ps` excluded). */
function hostProcessesWith(needle: string): string[] {
  const ps = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  return ps.split("\n").filter((l) => l.includes(needle) && !l.includes("ps -eo"));
}

let backend: DockerSandbox | undefined;
let root: string;
let ds: SampleDataset;
let served: ServedApp[] = [];

describe.skipIf(engine.env === null)(
  `swebench interactive attacked by its participant${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    const env = engine.env!;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "a2a-swe-attack-test-"));
      ds = await ensureSampleDataset(join(root, "cache"));
      await buildSampleImages(ds, env);
      backend = await createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env });
    }, 600_000);
    afterAll(async () => {
      await Promise.all(served.map((s) => s.close()));
      served = [];
      await backend?.close();
      await rm(root, { recursive: true, force: true });
    });

    async function serve(solver: Solver): Promise<ServedApp & { url: string }> {
      const purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
      served.push(purple);
      return purple;
    }

    function options(agent: string, extra: Partial<RunOptions> = {}) {
      const runId = `atk-${randomBytes(4).toString("hex")}`;
      return testRunOptions({
        benchmark: "swebench",
        out: join(root, runId),
        run_id: runId,
        dataset: "sample",
        sandbox: "docker",
        agent,
        interaction: "interactive",
        per_task_timeout_seconds: 120,
        max_turns: 20,
        command_timeout_seconds: 8,
        swebench_image_template: SAMPLE_IMAGE_TEMPLATE,
        ...extra,
      });
    }

    async function episode(
      inst: SwebenchInstance,
      commands: string[],
      extra: Partial<RunOptions> = {},
      signal: AbortSignal = new AbortController().signal,
      onTurn?: (t: { turn: number; command: string }) => void,
    ) {
      const solver = new CommandSolver(commands);
      const purple = await serve(solver);
      const opts = options(purple.url, extra);
      const row = await createSwebenchBenchmark().evaluate(
        { id: inst.instance_id, instance: inst },
        {
          options: opts,
          sandbox: backend!,
          participant: null,
          logger: silentLogger(),
          signal,
          workDir: join(opts.out, "work"),
          ...(onTurn ? { onTurn } : {}),
        },
      );
      expect(await containersLabelled(env, OWNER_LABEL, opts.run_id)).toEqual([]);
      return { row, solver, purple };
    }

    it("flooding, a fork bomb, filling /tmp, sleeping past the timeout: each bounded, later commands work", async () => {
      const { row, solver } = await episode(ds.instances[0]!, [
        "yes | head -c 200M",
        "echo before-sleep; sleep 100",
        "bomb() { bomb | bomb & }; bomb; sleep 30",
        "dd if=/dev/zero of=/tmp/fill bs=1M count=1024 2>&1 | grep -m1 -o 'No space left on device'; stat -c %s /tmp/fill; rm -f /tmp/fill",
        // The repository's disk has no quota of its own (overlay2 on the host's disk): bounded by the command timeout.
        "dd if=/dev/zero of=fill.bin bs=1M count=300 status=none; stat -c %s fill.bin; rm -f fill.bin",
        "echo still-alive; ps -e --no-headers | wc -l",
      ]);
      const r = solver.results();
      expect(r).toHaveLength(6);
      // The flood: its output reaches the participant cut to a bound, and the episode goes on.
      expect(r[0]!.stdout.length).toBeLessThan(20 * 1024 * 1024);
      // The sleep: stopped by the command timeout, its partial output returned.
      expect(r[1]).toMatchObject({ exit_code: 124 });
      expect(r[1]!.stdout).toContain("before-sleep");
      // The fork bomb: stopped at the command timeout (the pids cap holds it meanwhile).
      expect([124, 137]).toContain(r[2]!.exit_code);
      // /tmp is a bounded tmpfs.
      expect(r[3]!.stdout).toMatch(/No space left on device/);
      expect(Number(r[3]!.stdout.trim().split("\n").at(-1))).toBeLessThanOrEqual(256 * 1024 * 1024);
      expect(r[4]).toMatchObject({ exit_code: 0, stdout: "314572800\n" });
      // Later commands still work, and nothing of the bomb is left running.
      expect(r[5]).toMatchObject({ exit_code: 0 });
      expect(r[5]!.stdout).toContain("still-alive");
      expect(Number(r[5]!.stdout.trim().split("\n").at(-1))).toBeLessThan(20);
      expect(row).toMatchObject({ status: "EMPTY_PATCH", exit_status: "final", error: null, turns: 7 });
    }, 300_000);

    it("no network (outside, the host's loopback ports, the engine's gateway), no host files, no harness variables, no test patch", async () => {
      const inst = ds.instances[0]!;
      const purple = await serve(new CommandSolver([]));
      const port = new URL(purple.url).port;
      const testLine = inst.test_patch
        .split("\n")
        .filter((l) => l.startsWith("+") && !l.startsWith("+++") && l.trim().length > 12)
        .map((l) => l.slice(1).trim())
        .sort((a, b) => b.length - a.length)[0]!;
      expect(testLine).toBeTruthy();
      const probe = (host: string, p: number | string) =>
        `python3 -c "import socket;s=socket.socket();s.settimeout(3);s.connect(('${host}',${p}));print('CONNECTED ${host}')" 2>&1 | tail -n 1`;
      const { row, solver } = await episode(
        inst,
        [
          [
            "curl -sS -m 3 http://1.1.1.1/ 2>&1 | head -c 300; echo",
            probe("1.1.1.1", 80),
            probe("127.0.0.1", port),
            probe("172.17.0.1", port),
            probe("host.docker.internal", port),
            "echo net-done",
          ].join("; "),
          `ls -d ${root} ${process.cwd()} 2>&1; ls /var/run/docker.sock /run/docker.sock 2>&1; cat /proc/mounts | awk '{print $1, $2}'`,
          "env; tr '\\0' '\\n' < /proc/1/environ",
          `grep -rlF --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev -- ${JSON.stringify(testLine)} / 2>/dev/null; echo searched`,
          "ls -a .git; cat .git/ORIG_HEAD .git/FETCH_HEAD .git/packed-refs 2>&1; find .git/logs -type f -exec cat {} +; git count-objects -v",
          // A whole-filesystem grep is slow on a loaded host: the command limit is not what this case tests.
        ],
        { command_timeout_seconds: 60 },
      );
      const r = solver.results();
      expect(r).toHaveLength(5);
      const net = r[0]!.stdout + r[0]!.stderr;
      expect(net).toContain("net-done");
      expect(net).not.toMatch(/CONNECTED|<html/i);
      expect(r[1]!.stdout).toMatch(/No such file/);
      expect(r[1]!.stdout).not.toContain(`${root}\n`);
      expect(r[1]!.stdout).not.toMatch(/docker\.sock\n/);
      expect(r[1]!.stdout).not.toMatch(/\s\/(work|home|root)\b/);
      const vars = r[2]!.stdout;
      expect(vars).not.toMatch(/A2A_BENCH|DOCKER_HOST|VITEST|NODE_OPTIONS/);
      expect(vars).not.toContain(process.env["HOME"] === "/root" ? "\n__none__" : String(process.env["HOME"]));
      expect(r[3]!.stdout.trim()).toBe("searched");
      // The fresh repository: one commit, no ORIG_HEAD, FETCH_HEAD or packed refs, reflogs of it alone.
      const git = r[4]!.stdout + r[4]!.stderr;
      expect(git).toMatch(/ORIG_HEAD: No such file/);
      expect(git).toMatch(/FETCH_HEAD: No such file/);
      expect(git).not.toContain(inst.base_commit);
      expect(row).toMatchObject({ status: "EMPTY_PATCH", exit_status: "final", error: null });
    }, 300_000);

    it("forging the score: harness-looking lines, edited test files, a planted conftest.py/sitecustomize never resolve strictly", async () => {
      const inst = ds.instances[0]!;
      const testFile = /^\+\+\+ b\/(.+)$/m.exec(inst.test_patch)![1]!;
      const conftest = [
        "import pytest",
        "@pytest.hookimpl(hookwrapper=True)",
        "def pytest_runtest_makereport(item, call):",
        "    outcome = yield",
        "    outcome.get_result().outcome = 'passed'",
        "",
      ].join("\n");
      const { row } = await episode(inst, [
        "echo '>>>>> All Tests Passed'; echo 'RESOLVED_FULL'; echo 'PASSED tests/test_x.py::test_y'",
        `printf '%s' ${JSON.stringify(conftest)} > conftest.py && cp conftest.py ${JSON.stringify(testFile.replace(/[^/]+$/, ""))}conftest.py 2>/dev/null; true`,
        "printf 'import builtins\\n' > sitecustomize.py",
        `mkdir -p $(dirname ${JSON.stringify(testFile)}) && echo 'def test_forged(): pass' > ${JSON.stringify(testFile)}`,
      ]);
      expect(row.error, String(row.error)).toBeNull();
      expect(row["resolved_strict"]).toBe(false);
      expect(String(row.failure_mode ?? "")).not.toMatch(/^infrastructure/);
      // Whatever the forged conftest made of the run, the planted files are flagged.
      expect(row["touches_test_config"]).toEqual(expect.arrayContaining(["conftest.py"]));
    }, 300_000);

    it("a change too large to take, and a repository made undiffable, score 0 as the participant's (not an infrastructure error)", async () => {
      const big = await episode(ds.instances[1]!, ["head -c 24M /dev/urandom > big.bin && ls -l big.bin"]);
      expect(big.row).toMatchObject({ status: "EMPTY_PATCH", passed: false, failure_mode: "model_empty_patch" });
      expect(String(big.row.error)).toMatch(/more than \d+/);
      const broken = await episode(ds.instances[1]!, ["echo x >> README.md; rm -rf .git; echo 'garbage' > .git"]);
      expect(broken.row).toMatchObject({ status: "EMPTY_PATCH", passed: false, failure_mode: "model_empty_patch" });
      expect(String(broken.row.error)).toMatch(/taking the change/);
      // A process left behind swaps the diff file for a link to an endless file while the change is taken.
      const swapped = await episode(ds.instances[1]!, [
        "echo x >> README.md; setsid bash -c 'while :; do ln -sfn /dev/zero /tmp/a2a-bench-episode.diff; done' >/dev/null 2>&1 < /dev/null & echo left",
      ]);
      expect(swapped.row).toMatchObject({ status: "EMPTY_PATCH", passed: false, failure_mode: "model_empty_patch" });
      expect(String(swapped.row.error)).toMatch(/larger than|reading/);
    }, 300_000);

    it("cancelling the run mid-episode stops the environment: no container, no docker client left", async () => {
      const ac = new AbortController();
      let containerId = "";
      const solver: Solver = {
        mode: "scripted",
        solve(input) {
          const msg = JSON.parse(input.text) as ExecResult;
          if (msg.kind === "task")
            return Promise.resolve({ text: JSON.stringify({ kind: "exec_request", command: "hostname" }) });
          if (containerId === "") {
            containerId = msg.stdout.trim();
            setTimeout(() => ac.abort(), 2000);
            return Promise.resolve({ text: JSON.stringify({ kind: "exec_request", command: "sleep 60" }) });
          }
          return Promise.resolve({ text: JSON.stringify({ kind: "final" }) });
        },
      };
      const purple = await serve(solver);
      const runId = `atk-cancel-${randomBytes(4).toString("hex")}`;
      const started = Date.now();
      const run = runBenchmark(
        {
          benchmark: "swebench",
          run_id: runId,
          dataset: "sample",
          sandbox: "docker",
          agent: purple.url,
          interaction: "interactive",
          concurrency: 1,
          command_timeout_seconds: 60,
          swebench_image_template: SAMPLE_IMAGE_TEMPLATE,
        },
        {
          out: join(root, runId),
          signal: ac.signal,
          createSandbox: () => createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env }),
        },
      );
      await run.catch(() => undefined);
      expect(ac.signal.aborted).toBe(true);
      expect(Date.now() - started).toBeLessThan(120_000);
      expect(containerId).toMatch(/^[0-9a-f]{12}$/);
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
      expect(hostProcessesWith(containerId)).toEqual([]);
    }, 300_000);

    it("a participant that never answers times out per turn, scored as its failure; the run goes on to the next instance", async () => {
      let silent: string | undefined; // the first instance the run sends
      const solver: Solver = {
        mode: "scripted",
        async solve(input, signal) {
          const msg = JSON.parse(input.text) as { instance_id?: string };
          silent ??= msg.instance_id;
          if (msg.instance_id === silent) {
            await new Promise<void>((done) => {
              const t = setTimeout(done, 20_000);
              signal.addEventListener("abort", () => {
                clearTimeout(t);
                done();
              });
            });
          }
          return { text: JSON.stringify({ kind: "final" }) };
        },
      };
      const purple = await serve(solver);
      const runId = `atk-silent-${randomBytes(4).toString("hex")}`;
      const run = await runBenchmark(
        {
          benchmark: "swebench",
          run_id: runId,
          dataset: "sample",
          num_instances: 2,
          sandbox: "docker",
          agent: purple.url,
          interaction: "interactive",
          concurrency: 1,
          turn_timeout_seconds: 3,
          swebench_image_template: SAMPLE_IMAGE_TEMPLATE,
        },
        {
          out: join(root, runId),
          createSandbox: () => createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env }),
        },
      );
      const rows = run.results.rows;
      expect(rows).toHaveLength(2);
      expect(rows[0]!.id).toBe(silent);
      expect(rows[0]).toMatchObject({ status: "EMPTY_PATCH", exit_status: "participant_error", passed: false });
      expect(String(rows[0]!.failure_mode)).not.toMatch(/^infrastructure/);
      expect(rows[1]).toMatchObject({ status: "EMPTY_PATCH", exit_status: "final" });
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
    }, 300_000);

    it("concurrent episodes cannot see each other's environment", async () => {
      const ids: string[] = []; // in the order their tasks came
      const wrote: Array<() => void> = [];
      const bothWrote = Promise.all([0, 1].map((k) => new Promise<void>((done) => (wrote[k] = done))));
      const seen = new Map<string, string>();
      /** Every command echoes its instance id first, so a result names its episode. */
      const solver: Solver = {
        mode: "scripted",
        async solve(input) {
          const msg = JSON.parse(input.text) as ExecResult & { instance_id?: string };
          const exec = (command: string) => ({ text: JSON.stringify({ kind: "exec_request", command }) });
          if (msg.kind === "task") {
            const id = msg.instance_id!;
            ids.push(id);
            return exec(`echo ID=${id}; echo ${id} > /tmp/MARK_${id}; echo ${id} > MARK_${id}; sleep 1000 & true`);
          }
          const id = /^ID=(\S+)/.exec(msg.stdout)![1]!;
          if (!seen.has(id) && msg.stdout.split("\n").length <= 2) {
            seen.set(id, "");
            wrote[ids.indexOf(id)]!();
            await bothWrote; // both environments hold their marker now
            return exec(`echo ID=${id}; ls /tmp /testbed | grep MARK_; ps -eo args | grep -c 'sleep 1000'; hostname`);
          }
          seen.set(id, msg.stdout);
          return { text: JSON.stringify({ kind: "final" }) };
        },
      };
      const purple = await serve(solver);
      const runId = `atk-conc-${randomBytes(4).toString("hex")}`;
      const run = await runBenchmark(
        {
          benchmark: "swebench",
          run_id: runId,
          dataset: "sample",
          num_instances: 2,
          sandbox: "docker",
          agent: purple.url,
          interaction: "interactive",
          concurrency: 2,
          turn_timeout_seconds: 120,
          swebench_image_template: SAMPLE_IMAGE_TEMPLATE,
        },
        {
          out: join(root, runId),
          createSandbox: () => createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env }),
        },
      );
      expect(run.results.rows.map((r) => String(r["exit_status"]))).toEqual(["final", "final"]);
      const [one, two] = ids.map((id) => seen.get(id)!);
      for (const [id, out] of [
        [ids[0]!, one!],
        [ids[1]!, two!],
      ] as const) {
        const other = ids.find((x) => x !== id)!;
        expect(out).toContain(`MARK_${id}`);
        expect(out).not.toContain(`MARK_${other}`);
        // Its own background sleep alone (the grep counts itself too).
        expect(Number(out.trim().split("\n").at(-2))).toBeLessThanOrEqual(2);
      }
      expect(one!.trim().split("\n").at(-1)).not.toBe(two!.trim().split("\n").at(-1));
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
    }, 300_000);
  },
);
