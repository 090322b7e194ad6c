/**
 * SWE-bench interactive on the docker backend, end to end: the benchmark definition runs an
 * episode in the instance's image against a REAL A2A participant on loopback (the purple app with
 * a scripted Solver), takes the change it left and grades it in a fresh environment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
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
import { docker } from "../../../../src/sandbox/docker/docker-cli.js";
import { DEFAULT_LIMITS } from "../../../../src/sandbox/limits.js";
import { silentLogger } from "../../../../src/util/logger.js";
import { createPurpleApp } from "../../../../src/purple/app.js";
import type { Solver, SolverInput, SolverReply } from "../../../../src/purple/solver.js";
import type { ServedApp } from "../../../../src/a2a/server/serve.js";
import { readTrajectory } from "../../../../src/interactive/trajectory.js";
import { aggregateSwebench } from "../../../../src/benchmarks/swebench/report.js";
import { runBenchmark } from "../../../../src/library/run-benchmark.js";
import { serveOnLoopback } from "../../../a2a/helpers.js";
import { containersLabelled, testEngine } from "../../../support/container-engine.js";

const engine = await testEngine();

/** Answers each turn with the next command, then `final`; keeps what it was sent. */
class CommandSolver implements Solver {
  readonly mode = "scripted";
  readonly seen: string[] = [];
  constructor(private readonly commands: string[]) {}
  solve(input: SolverInput): Promise<SolverReply> {
    this.seen.push(input.text);
    const command = this.commands[this.seen.length - 1];
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    return Promise.resolve({
      text: JSON.stringify(command === undefined ? { kind: "final" } : { kind: "exec_request", command }),
      usage,
    });
  }
}

let backend: DockerSandbox | undefined;
let root: string;
let ds: SampleDataset;
let served: ServedApp[] = [];
/** The image with a later commit (tag, remote ref, reflog) whose hash is `futureCommit`. */
let futureImage: string;
let futureCommit: string;
const FUTURE_MARK = "FUTURE_FIX_MARKER_7f3a";

describe.skipIf(engine.env === null)(
  `swebench interactive in per-instance images${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    const env = engine.env!;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "a2a-swe-episode-test-"));
      ds = await ensureSampleDataset(join(root, "cache"));
      const images = await buildSampleImages(ds, env);
      const first = ds.instances[0]!;
      // A test bed that still holds the future: a later commit reachable from a tag, a remote ref
      // and the reflog, with its content in a file and its subject.
      const ctxDir = join(root, "future-image");
      await rm(ctxDir, { recursive: true, force: true });
      await mkdir(ctxDir, { recursive: true });
      const git = "git -c user.name=f -c user.email=f@example.invalid";
      await writeFile(
        join(ctxDir, "Dockerfile"),
        [
          `FROM ${images[first.instance_id]}`,
          `RUN cd /testbed && echo ${FUTURE_MARK} > future_fix.txt && git add future_fix.txt && ` +
            `${git} commit -q -m "fix ${FUTURE_MARK}" && git tag v-future && ` +
            `git update-ref refs/remotes/origin/main HEAD && git rev-parse HEAD > /future-commit && ` +
            `git checkout -q --detach ${first.base_commit}`,
          "",
        ].join("\n"),
      );
      futureImage = `a2a-bench-test/swe-future:${first.base_commit.slice(0, 12)}`;
      const built = await docker(["build", "--network", "none", "-q", "-t", futureImage, ctxDir], {
        env,
        signal: AbortSignal.timeout(300_000),
      });
      expect(built.exitCode, built.stderr).toBe(0);
      const read = await docker(["run", "--rm", "--network", "none", futureImage, "cat", "/future-commit"], { env });
      futureCommit = read.stdout.trim();
      expect(futureCommit).toMatch(/^[0-9a-f]{40}$/);
      backend = await createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env });
    }, 600_000);
    afterAll(async () => {
      await Promise.all(served.map((s) => s.close()));
      served = [];
      await backend?.close();
      await rm(root, { recursive: true, force: true });
    });

    async function episode(inst: SwebenchInstance, commands: string[], extra: Partial<RunOptions> = {}) {
      const solver = new CommandSolver(commands);
      const purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
      served.push(purple);
      const runId = `ep-${randomBytes(4).toString("hex")}`;
      const out = join(root, runId);
      const options = testRunOptions({
        benchmark: "swebench",
        out,
        run_id: runId,
        dataset: "sample",
        sandbox: "docker",
        agent: purple.url,
        interaction: "interactive",
        per_task_timeout_seconds: 60,
        max_turns: 10,
        command_timeout_seconds: 30,
        swebench_image_template: SAMPLE_IMAGE_TEMPLATE,
        ...extra,
      });
      const turns: Array<{ turn: number; command: string }> = [];
      const row = await createSwebenchBenchmark().evaluate(
        { id: inst.instance_id, instance: inst },
        {
          options,
          sandbox: backend!,
          participant: null,
          logger: silentLogger(),
          signal: new AbortController().signal,
          workDir: join(out, "work"),
          onTurn: (t) => turns.push(t),
        },
      );
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
      return { row, solver, out, turns };
    }

    it("a participant applying the gold patch by commands resolves; the row carries its episode", async () => {
      const inst = ds.instances[0]!;
      const b64 = Buffer.from(inst.patch!).toString("base64");
      const { row, solver, out, turns } = await episode(inst, [
        `echo ${b64} | base64 -d > /tmp/gold.patch && git apply /tmp/gold.patch && git status --short`,
      ]);
      expect(row.status, String(row.error)).toBe("RESOLVED_FULL");
      expect(turns).toMatchObject([{ turn: 1, command: expect.stringMatching(/^echo .* \| base64 -d/) }]);
      expect(row).toMatchObject({
        passed: true,
        resolved: true,
        interaction: "interactive",
        exit_status: "final",
        turns: 2,
        commands: 1,
        usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
      });
      // The command's result went back to the participant: git saw the changed file.
      const result = JSON.parse(solver.seen[1]!) as { kind: string; exit_code: number; stdout: string };
      expect(result).toMatchObject({ kind: "exec_result", exit_code: 0 });
      expect(result.stdout).toMatch(/^ ?M /m);
      const { lines } = await readTrajectory(join(out, String(row["trajectory"])));
      expect(lines.map((l) => l.type)).toEqual(["episode_start", "turn", "turn", "episode_end"]);
      // The graded patch is the gold change (test files are never in it).
      expect(await readFile(join(String(row.artifacts_dir), "patch.diff"), "utf8")).toContain("+++ b/");
      const agg = aggregateSwebench([row]);
      expect(agg["interactive"]).toEqual({
        items: 1,
        mean_turns: 2,
        exit_status_counts: { final: 1 },
        self_reported_tokens: 30,
        self_reported_tokens_per_resolved: 30,
      });
    }, 300_000);

    it("end to end through the engine: a participant applying each instance's gold patch resolves every one", async () => {
      /** Reads the task message's instance id, applies that instance's gold patch, then answers final. */
      const gold: Solver = {
        mode: "scripted",
        solve(input) {
          const msg = JSON.parse(input.text) as { kind: string; instance_id?: string };
          if (msg.kind !== "task") return Promise.resolve({ text: JSON.stringify({ kind: "final" }) });
          const patch = ds.instances.find((i) => i.instance_id === msg.instance_id)!.patch!;
          const command = `echo ${Buffer.from(patch).toString("base64")} | base64 -d | git apply`;
          return Promise.resolve({ text: JSON.stringify({ kind: "exec_request", command }) });
        },
      };
      const purple = await serveOnLoopback((card) => createPurpleApp({ card, solver: gold }));
      served.push(purple);
      const runId = `ep-e2e-${randomBytes(4).toString("hex")}`;
      const run = await runBenchmark(
        {
          benchmark: "swebench",
          run_id: runId,
          dataset: "sample",
          sandbox: "docker",
          agent: purple.url,
          interaction: "interactive",
          concurrency: 1,
          swebench_image_template: SAMPLE_IMAGE_TEMPLATE,
        },
        {
          out: join(root, runId),
          createSandbox: () => createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env }),
        },
      );
      expect(run.results.rows.map((r) => `${r.id}:${r.status}:${String(r["exit_status"])}`)).toEqual(
        ds.instances.map((i) => `${i.instance_id}:RESOLVED_FULL:final`),
      );
      expect(run.results.aggregate).toMatchObject({
        resolved_rate: 1,
        interactive: { items: ds.instances.length, mean_turns: 2, exit_status_counts: { final: ds.instances.length } },
      });
      expect(run.options).toMatchObject({ interaction: "interactive", max_turns: 100, command_timeout_seconds: 60 });
      const events = await readFile(join(root, runId, "events.jsonl"), "utf8");
      expect(events.split("\n").filter((l) => l.includes('"event":"turn"'))).toHaveLength(ds.instances.length);
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
    }, 300_000);

    it("a participant that answers final at once scores 0 cleanly (an empty patch, not an error)", async () => {
      const { row } = await episode(ds.instances[1]!, []);
      expect(row).toMatchObject({
        status: "EMPTY_PATCH",
        passed: false,
        resolved: false,
        error: null,
        failure_mode: "model_empty_patch",
        exit_status: "final",
        turns: 1,
        commands: 0,
      });
    }, 300_000);

    it("the repository is the dataset's base commit alone: HEAD its hash, no trace of later history (git log --all, fsck, every object, refs), no gc", async () => {
      const inst = ds.instances[0]!;
      const { row, solver } = await episode(
        inst,
        [
          "git log --all --format='%H %s' ; git reflog --all ; git tag ; git remote -v ; git for-each-ref",
          "git fsck --lost-found --unreachable --no-reflogs --full 2>&1 ; ls .git/lost-found 2>&1 ; echo done",
          `git cat-file -t ${futureCommit} 2>&1 ; git cat-file --batch-all-objects --batch | grep -c ${FUTURE_MARK} ; true`,
          "git rev-list --all | wc -l ; ls future_fix.txt 2>&1 ; true",
          "git rev-parse HEAD ; git log -1 --format=%H ; cat .git/shallow ; git config gc.auto ; git config maintenance.auto ; test -e .git/gc.pid -o -e .git/gc.log ; echo gc=$?",
        ],
        { swebench_images: { [inst.instance_id]: futureImage } },
      );
      const results = solver.seen.slice(1).map((t) => JSON.parse(t) as { stdout: string; stderr: string });
      const all = results.map((r) => r.stdout + r.stderr).join("\n");
      expect(all).not.toContain(futureCommit);
      expect(all).not.toContain(FUTURE_MARK);
      expect(results[0]!.stdout).not.toMatch(/fix FUTURE|v-future|origin/);
      expect(results[0]!.stdout.trim().split("\n")).toHaveLength(2); // one commit, one ref (refs/heads/main)
      expect(results[2]!.stdout).toMatch(/fatal|could not get object info|bad file/i);
      expect(results[2]!.stdout.trim().split("\n").at(-1)).toBe("0"); // no object holds the future's content
      expect(results[3]!.stdout).toMatch(/^1\n/);
      expect(results[3]!.stdout).toMatch(/No such file/);
      // HEAD is the dataset's base commit (the same hash, shallow at it), and the task names it.
      const b = inst.base_commit;
      expect(results[4]!.stdout.trim().split("\n")).toEqual([b, b, b, "0", "false", "gc=1"]);
      expect(JSON.parse(solver.seen[0]!)).toMatchObject({ kind: "task", base_commit: b });
      expect((JSON.parse(solver.seen[0]!) as { instruction: string }).instruction).toContain(b);
      expect(row).toMatchObject({ status: "EMPTY_PATCH", exit_status: "final", turns: 6 });
    }, 300_000);
  },
);
