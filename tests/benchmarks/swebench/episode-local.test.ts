/**
 * SWE-bench interactive on the LOCAL backend, end to end: the benchmark's one episode flow opens a
 * local environment (bwrap) holding the base commit alone (its own hash, shallow), a REAL A2A
 * participant on loopback (the purple app: gold and echo modes, and a scripted probe) acts in it, and
 * the change it left is graded by the host path in a fresh checkout.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import { createSwebenchBenchmark } from "../../../src/benchmarks/swebench/definition.js";
import { ensureSampleDataset, type SampleDataset } from "../../../src/benchmarks/swebench/sample-dataset.js";
import type { SwebenchInstance } from "../../../src/benchmarks/swebench/instance.js";
import type { RunOptions } from "../../../src/runner/options.js";
import { testRunOptions } from "../../support/run-options.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import { silentLogger } from "../../../src/util/logger.js";
import { createPurpleApp } from "../../../src/purple/app.js";
import { createGoldSolver } from "../../../src/purple/solvers/gold.js";
import { createEchoSolver } from "../../../src/purple/solvers/echo.js";
import type { Solver, SolverInput, SolverReply } from "../../../src/purple/solver.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { runBenchmark } from "../../../src/library/run-benchmark.js";
import { serveOnLoopback } from "../../a2a/helpers.js";
import { withHeredoc } from "../../../src/purple/interactive/shell-text.js";
import { SUBMIT_SENTINEL } from "../../../src/interactive/sentinel.js";
import {
  agentSwe,
  carBenchCall,
  fixture,
  miniSweCall,
  serveReplies,
  tau2Call,
  terminalBench,
} from "../../interactive/dialect-fixtures.js";
import { historyRepo } from "./fixtures/history-repo.js";

/** Answers each turn with the next command, then `final`; keeps what it was sent. */
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
}

/**
 * {@link CommandSolver} with a first command of its own that writes a mark file into the environment's working
 * tree; when its result comes back (the environment open) the environment's directory on this host is found by it.
 */
class MarkingSolver extends CommandSolver {
  readonly mark = `a2a-mark-${randomBytes(6).toString("hex")}`;
  roots: string[] = [];
  /** Each command with its own limit, seconds (else the episode's default). */
  constructor(commands: (string | { command: string; timeout: number })[]) {
    super([]);
    this.script = [`touch ${this.mark}`, ...commands];
  }
  private script: (string | { command: string; timeout: number })[];
  override solve(input: SolverInput): Promise<SolverReply> {
    this.seen.push(input.text);
    if (this.seen.length === 2)
      this.roots = spawnSync("find", [tmpdir(), "-ignore_readdir_race", "-maxdepth", "3", "-name", this.mark], {
        encoding: "utf8",
      })
        .stdout.split("\n")
        .filter(Boolean)
        .map((p) => resolve(p, "..", ".."));
    const next = this.script[this.seen.length - 1];
    const action = typeof next === "string" ? { command: next } : next;
    return Promise.resolve({
      text: JSON.stringify(action === undefined ? { kind: "final" } : { kind: "exec_request", ...action }),
    });
  }
}

/** 250-character directory names nested 30 deep (beyond PATH_MAX), a FIFO at the bottom, mode-000 directories. */
const LEAVE_TREE = [
  'leave() { d=$(printf \'x%.0s\' $(seq 250)); mkdir -p "$1" && cd "$1" || return 1',
  'for i in $(seq 30); do mkdir "$d" && cd "$d" || return 1; done',
  "mkfifo fifo && mkdir locked && touch locked/f && chmod 000 locked",
  'cd "$1" && mkdir shut && touch shut/f && chmod 000 shut; }',
  'leave "$PWD/left" && leave /tmp/left && echo left',
].join("; ");

let sandbox: Sandbox;
let root: string;
let ds: SampleDataset;
const served: ServedApp[] = [];

const probe = await createSandbox({ backend: "local", logger: silentLogger() });
const skip = probe.capabilities.has("environments") ? null : `no environments here (isolation ${probe.isolation})`;
await probe.close();

/** Processes of this host whose command line holds `mark`. */
function processesWith(mark: string): string[] {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
    .split("\n")
    .filter((l) => l.includes(mark) && !l.includes("ps -eo"));
}

describe.skipIf(skip !== null)(`swebench interactive on the local backend${skip ? ` (skipped: ${skip})` : ""}`, () => {
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "a2a-swe-local-episode-"));
    ds = await ensureSampleDataset(join(root, "cache"));
    sandbox = await createSandbox({ backend: "local", logger: silentLogger() });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(served.map((s) => s.close()));
    await sandbox?.close();
    await rm(root, { recursive: true, force: true });
  });

  async function episode(inst: SwebenchInstance, solver: Solver, extra: Partial<RunOptions> = {}) {
    const purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
    served.push(purple);
    return episodeAt(inst, purple.url, extra);
  }

  /** An episode against another team's purple: its whole responses, in order (tests/fixtures/dialects). */
  async function dialectEpisode(inst: SwebenchInstance, replies: ReturnType<typeof fixture>[]) {
    const participant = await serveReplies(replies);
    try {
      return await episodeAt(inst, participant.url);
    } finally {
      await participant.close();
    }
  }

  async function episodeAt(inst: SwebenchInstance, url: string, extra: Partial<RunOptions> = {}) {
    const runId = `lep-${randomBytes(4).toString("hex")}`;
    const out = join(root, runId);
    const options = testRunOptions({
      benchmark: "swebench",
      out,
      run_id: runId,
      dataset: "sample",
      repos_dir: ds.reposDir,
      sandbox: "local",
      agent: url,
      interaction: "interactive",
      per_task_timeout_seconds: 120,
      max_turns: 10,
      command_timeout_seconds: 30,
      ...extra,
    });
    const row = await createSwebenchBenchmark().evaluate(
      { id: inst.instance_id, instance: inst },
      {
        options,
        sandbox,
        participant: null,
        logger: silentLogger(),
        signal: new AbortController().signal,
        workDir: join(out, "work"),
      },
    );
    return { row, out };
  }

  /**
   * One run of the whole sample set through the runner with the gold purple, taken once: the gold purple acts
   * only in its own episodes' environments, and both cases below only read the rows and files it left.
   */
  let goldRun: ReturnType<typeof runBenchmark> | undefined;
  function sharedGoldRun(): ReturnType<typeof runBenchmark> {
    goldRun ??= (async () => {
      const purple = await serveOnLoopback((card) => createPurpleApp({ card, solver: createGoldSolver() }));
      served.push(purple);
      const runId = `lep-e2e-${randomBytes(4).toString("hex")}`;
      return runBenchmark(
        {
          benchmark: "swebench",
          run_id: runId,
          dataset: "sample",
          sandbox: "local",
          agent: purple.url,
          interaction: "interactive",
          concurrency: 1,
          // The tests of one instance take seconds; a host shared with other suites may take minutes.
          per_task_timeout_seconds: 300,
        },
        { out: join(root, runId) },
      );
    })();
    return goldRun;
  }

  it("the gold purple resolves each sample instance; the row carries its episode", async () => {
    const { rows } = (await sharedGoldRun()).results;
    for (const inst of ds.instances) {
      const row = rows.find((r) => r.id === inst.instance_id)!;
      expect(row, inst.instance_id).toBeDefined();
      expect(row.status, String(row.error)).toBe("RESOLVED_FULL");
      expect(row).toMatchObject({ interaction: "interactive", exit_status: "final", turns: 2, commands: 1 });
      const patch = await readFile(join(String(row.artifacts_dir), "patch.diff"), "utf8");
      expect(patch).toContain("+++ b/");
    }
  }, 300_000);

  it("the echo purple (final at once) scores 0 cleanly: an empty patch, not an error", async () => {
    const { row } = await episode(ds.instances[0]!, createEchoSolver());
    expect(row).toMatchObject({
      status: "EMPTY_PATCH",
      passed: false,
      error: null,
      failure_mode: "model_empty_patch",
      exit_status: "final",
      commands: 0,
    });
  }, 120_000);

  it("the working tree holds the base commit alone: no other history, no test or gold patch, no clone path", async () => {
    const inst = ds.instances[0]!;
    const baseTree = execFileSync(
      "git",
      ["-C", join(ds.reposDir, inst.repo.replace("/", "__")), "rev-parse", `${inst.base_commit}^{tree}`],
      {
        encoding: "utf8",
      },
    ).trim();
    const gold = inst.patch!.split("\n").find((l) => l.startsWith("+") && !l.startsWith("+++") && l.trim().length > 8)!;
    const solver = new CommandSolver([
      "pwd; git rev-list --all | wc -l; git rev-parse HEAD^{tree}; git for-each-ref; git remote -v; cat .git 2>&1 | head -1; ls -a",
      `git cat-file --batch-all-objects --batch-check | wc -l; git log --all --format=%H | grep -c ${inst.base_commit} ; true`,
      `grep -rF -- ${JSON.stringify(gold.slice(1).trim())} . /tmp 2>/dev/null | grep -v '^./.git' | wc -l`,
      `ls ${ds.reposDir} 2>&1; ls /root 2>&1; id -u`,
    ]);
    const { row } = await episode(inst, solver);
    const results = solver.seen.slice(1).map((t) => JSON.parse(t) as { stdout: string; stderr: string });
    expect(results).toHaveLength(4);
    const [first, second, third, fourth] = results.map((r) => r.stdout);
    expect(first!.split("\n").slice(0, 3)).toEqual(["/testbed", "1", baseTree]);
    expect(first).toContain("refs/heads/main");
    expect(first).not.toContain("origin");
    expect(second!.trim().split("\n").at(-1)).toBe("1"); // the base commit's own hash, once
    expect(third!.trim()).toBe("0");
    expect(fourth).toMatch(/No such file or directory/);
    expect(fourth!.trim().split("\n").at(-1)).not.toBe("0");
    expect(row).toMatchObject({ status: "EMPTY_PATCH", exit_status: "final" });
  }, 120_000);

  it("from a clone with history: HEAD is the dataset's base_commit, the task names it, nothing before or after it is there, and a fix against it resolves", async () => {
    const inst0 = ds.instances[0]!;
    const sampleRepo = join(ds.reposDir, inst0.repo.replace("/", "__"));
    const git = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, encoding: "utf8" });
    const files = Object.fromEntries(
      git(sampleRepo, "ls-tree", "-r", "--name-only", inst0.base_commit)
        .trim()
        .split("\n")
        .map((path) => [path, git(sampleRepo, "show", `${inst0.base_commit}:${path}`)]),
    );
    const reposDir = join(root, `history-repos-${randomBytes(4).toString("hex")}`);
    const repo = historyRepo(join(reposDir, inst0.repo.replace("/", "__")), files);
    const inst = { ...inst0, base_commit: repo.base };
    const gold = Buffer.from(inst.patch!).toString("base64");
    const solver = new CommandSolver([
      "git rev-parse HEAD; git log --all --format=%H | wc -l; git log -1 --format=%s; cat .git/shallow; git config gc.auto; git config maintenance.auto",
      `git cat-file -e ${repo.future} 2>/dev/null; echo future=$?; git cat-file -e ${repo.ancestor} 2>/dev/null; echo ancestor=$?; git diff ${repo.base} | wc -l`,
      `echo ${gold} | base64 -d | git apply && git diff ${repo.base} --stat | tail -1`,
    ]);
    const { row } = await episode(inst, solver, { repos_dir: reposDir });
    const task = JSON.parse(solver.seen[0]!) as { base_commit: string; instruction: string };
    expect(task.base_commit).toBe(repo.base);
    expect(task.instruction).toContain(repo.base);
    const [first, second, third] = solver.seen.slice(1).map((t) => (JSON.parse(t) as { stdout: string }).stdout);
    expect(first!.trim().split("\n")).toEqual([repo.base, "1", "base", repo.base, "0", "false"]);
    expect(second!.trim().split("\n")).toEqual(["future=1", "ancestor=1", "0"]);
    expect(third).toMatch(/1 file changed/);
    expect(row).toMatchObject({ status: "RESOLVED_FULL", exit_status: "final" });
  }, 180_000);

  it("nothing of an episode is left running: a background process it started dies with its environment", async () => {
    const mark = `a2a-bench-bg-${randomBytes(4).toString("hex")}`;
    const solver = new CommandSolver([
      `(exec -a ${mark} sleep 600) >/dev/null 2>&1 & setsid bash -c 'exec -a ${mark}x sleep 600' >/dev/null 2>&1 & echo started`,
    ]);
    const { row } = await episode(ds.instances[1]!, solver);
    expect(JSON.parse(solver.seen[1]!)).toMatchObject({ stdout: "started\n" });
    expect(row).toMatchObject({ exit_status: "final" });
    expect(processesWith(mark)).toEqual([]);
  }, 120_000);

  it("a participant that fixes the issue, then runs `kill -STOP -1`, is not resolved (its time limit, never ours); one that leaves a tree deeper than PATH_MAX, mode-000 directories and FIFOs is scored as without them; their directories are gone and the gold purple then resolves", async () => {
    const inst = ds.instances[0]!;
    const fix = withHeredoc("git apply", inst.patch!);
    const stopper = new MarkingSolver([fix, { command: "kill -STOP -1; echo stopped-them", timeout: 1 }]);
    const stopped = await episode(inst, stopper);
    expect(stopped.row).toMatchObject({
      passed: false,
      status: "EMPTY_PATCH",
      failure_mode: "model_empty_patch",
      exit_status: "resource_limit",
    });
    expect(stopped.row["episode_error"]).toMatchObject({
      code: "E_RESOURCE_LIMIT",
      message: expect.stringMatching(/time limit: a command did not end/) as unknown,
    });
    const leaver = new MarkingSolver([fix, LEAVE_TREE]);
    const left = await episode(inst, leaver);
    expect(JSON.parse(leaver.seen[3]!)).toMatchObject({ exit_code: 0, stdout: "left\n" });
    expect(left.row, String(left.row.error)).toMatchObject({ status: "RESOLVED_FULL", exit_status: "final" });
    for (const solver of [stopper, leaver]) {
      expect(solver.roots).toHaveLength(1);
      expect(solver.roots[0]!.startsWith(join(tmpdir(), "a2a-env-"))).toBe(true);
      await expect(stat(solver.roots[0]!)).rejects.toMatchObject({ code: "ENOENT" });
    }
    const { row } = await episode(inst, createGoldSolver());
    expect(row.status, String(row.error)).toBe("RESOLVED_FULL");
  }, 300_000);

  describe("other teams' purples, as they are on the wire, each driven to the right fix (and to a wrong one)", () => {
    const gold = () => ds.instances[0]!.patch!;
    const resolved = { status: "RESOLVED_FULL", passed: true, exit_status: "final" };

    it("AgentSWE: a command, then the gold diff as its `patch` artifact: resolved; a diff that does not apply: not", async () => {
      const inst = ds.instances[0]!;
      const right = await dialectEpisode(inst, [agentSwe("bash", "git status --short"), agentSwe("patch", gold())]);
      expect(right.row, String(right.row.error)).toMatchObject({ ...resolved, commands: 1 });
      const wrong = await dialectEpisode(inst, [
        agentSwe(
          "patch",
          "diff --git a/nowhere.py b/nowhere.py\n--- a/nowhere.py\n+++ b/nowhere.py\n@@ -1 +1 @@\n-a\n+b\n",
        ),
      ]);
      expect(wrong.row).toMatchObject({ passed: false, status: "PATCH_APPLY_FAILED" });
    }, 300_000);

    it("Terminal-Bench: a final carrying the diff over an untouched tree is applied: resolved; prose alone: empty", async () => {
      const inst = ds.instances[0]!;
      const right = await dialectEpisode(inst, [
        terminalBench({ kind: "final", output: "The fix:\n\n```diff\n" + gold() + "```\n" }),
      ]);
      expect(right.row, String(right.row.error)).toMatchObject({ ...resolved, commands: 0 });
      const wrong = await dialectEpisode(inst, [fixture("rdi-dummy-final")]);
      expect(wrong.row).toMatchObject({ passed: false, status: "EMPTY_PATCH" });
    }, 300_000);

    it("CAR-bench: its tool_name call applies the fix, its speech ends: resolved", async () => {
      const { row } = await dialectEpisode(ds.instances[0]!, [
        carBenchCall(withHeredoc("git apply", gold())),
        fixture("carbench-speech"),
      ]);
      expect(row, String(row.error)).toMatchObject({ ...resolved, commands: 1 });
    }, 300_000);

    it("tau2: its call applies the fix, `respond` ends: resolved; `respond` alone: empty", async () => {
      const inst = ds.instances[0]!;
      const right = await dialectEpisode(inst, [tau2Call(withHeredoc("git apply", gold())), fixture("tau2-respond")]);
      expect(right.row, String(right.row.error)).toMatchObject({ ...resolved, commands: 1 });
      const wrong = await dialectEpisode(inst, [fixture("tau2-respond")]);
      expect(wrong.row).toMatchObject({ passed: false, status: "EMPTY_PATCH" });
    }, 300_000);

    it("mini-swe-agent: the patch written to patch.txt, then the sentinel submits it: resolved", async () => {
      const { row } = await dialectEpisode(ds.instances[0]!, [
        miniSweCall(withHeredoc("cat > patch.txt", gold())),
        miniSweCall(`echo ${SUBMIT_SENTINEL} && cat patch.txt`),
      ]);
      expect(row, String(row.error)).toMatchObject({ ...resolved, commands: 2 });
    }, 300_000);
  });

  it("end to end through the runner with the gold purple: every instance resolved", async () => {
    const run = await sharedGoldRun();
    expect(run.results.rows.map((r) => `${r.id}:${r.status}:${String(r["exit_status"])}`)).toEqual(
      ds.instances.map((i) => `${i.instance_id}:RESOLVED_FULL:final`),
    );
    expect(run.results.aggregate).toMatchObject({ resolved_rate: 1 });
  }, 300_000);
});
