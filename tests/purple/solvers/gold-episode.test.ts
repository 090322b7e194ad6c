/**
 * The gold mode's interactive episode, run by the green's own episode loop
 * against the purple on loopback, its commands in real bash in a scratch git
 * repository: the heredoc must carry the patch byte for byte.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { createGoldSolver } from "../../../src/purple/solvers/gold.js";
import { GOLD_CANNOT, HUMANEVAL_SOLUTION_FILE } from "../../../src/purple/solvers/gold-episode.js";
import { createA2ATurnSender } from "../../../src/interactive/a2a-sender.js";
import { runEpisode } from "../../../src/interactive/episode.js";
import { MAX_COMMAND_BYTES } from "../../../src/interactive/limits.js";
import { SAMPLE_PROBLEMS } from "../../../src/benchmarks/humaneval/sample-dataset.js";
import type { ServedApp } from "../../../src/a2a/server/serve.js";
import { createA2AClient } from "../../../src/a2a/client/client.js";
import { joinedText, textPart, userMessage } from "../../../src/a2a/shared/parts.js";
import { collect } from "../../a2a/helpers.js";
import { BashEnvironment, converse, result, servePurple } from "../interactive/scripted-green.js";

/** File contents a naive heredoc or shell quoting would mangle. */
const BEFORE = "def f():\n    return 1\n";
const AFTER = "def f():\n    # it's $HOME `date` \\n EOF\n    return 'A2A_BENCH_EOF'\n";

/** The fields an instance file needs besides its id and patch. */
const instanceFields = {
  repo: "demo/demo",
  base_commit: "HEAD",
  problem_statement: "f returns the wrong thing",
  test_patch: "diff --git a/t.py b/t.py\n",
  FAIL_TO_PASS: [],
  PASS_TO_PASS: [],
};

let dir: string;
let instances: string;
let patch: string;
let served: (ServedApp & { url: string }) | undefined;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@e.st", "-c", "user.name=t", ...args], { cwd, encoding: "utf8" });

async function freshRepo(name: string): Promise<string> {
  const repo = join(dir, name);
  execFileSync("mkdir", ["-p", repo]);
  git(repo, "init", "-q");
  await writeFile(join(repo, "f.py"), BEFORE);
  git(repo, "add", "f.py");
  git(repo, "commit", "-qm", "base");
  return repo;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "gold-episode-"));
  const repo = await freshRepo("source");
  await writeFile(join(repo, "f.py"), AFTER);
  patch = git(repo, "diff");
  const instance = {
    ...instanceFields,
    instance_id: "demo__demo-1",
    patch,
  };
  instances = join(dir, "instances.json");
  await writeFile(instances, JSON.stringify([instance]));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe("gold mode, interactive", () => {
  test("SWE-bench: git apply of the gold patch through one command, then final; the tree holds the fix", async () => {
    served = await servePurple(createGoldSolver({ datasets: [instances] }));
    const repo = await freshRepo("target");
    const environment = new BashEnvironment(repo);
    const record = await runEpisode({
      instruction: "f returns the wrong thing",
      facts: { benchmark: "swebench", instance_id: "demo__demo-1" },
      participant: createA2ATurnSender({ url: served.url }),
      environment,
    });
    expect(record.error).toBeUndefined();
    expect(record).toMatchObject({
      exit_status: "final",
      turns: 2,
      commands: 1,
      final_output: "git apply of the gold patch: done",
    });
    expect(environment.commands[0]).toMatch(/^git apply --verbose <<'A2A_BENCH_EOF_[0-9a-f]{16}'\n/);
    expect(await readFile(join(repo, "f.py"), "utf8")).toBe(AFTER);
  });

  test("SWE-bench in the task's workdir; a patch that does not apply still ends `final` (the grader decides)", async () => {
    served = await servePurple(createGoldSolver({ datasets: [instances] }));
    const repo = await freshRepo("conflict");
    await writeFile(join(repo, "f.py"), "something else\n");
    const environment = new BashEnvironment(dir);
    const record = await runEpisode({
      instruction: "fix",
      facts: { benchmark: "swebench", instance_id: "demo__demo-1", workdir: repo },
      participant: createA2ATurnSender({ url: served.url }),
      environment,
    });
    expect(environment.commands[0]).toMatch(/^cd '.*conflict' && git apply/);
    expect(record).toMatchObject({
      exit_status: "final",
      final_output: "git apply of the gold patch: failed (exit 1)",
    });
    expect(await readFile(join(repo, "f.py"), "utf8")).toBe("something else\n");
  });

  test("SWE-bench: a patch too long for one command is written in several, then applied", async () => {
    const big = await freshRepo("big-source");
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} ${"$x 'q' ".repeat(4)}`);
    await writeFile(join(big, "f.py"), lines.join("\n") + "\n");
    const bigPatch = git(big, "diff");
    expect(Buffer.byteLength(bigPatch)).toBeGreaterThan(MAX_COMMAND_BYTES);
    const file = join(dir, "big.json");
    await writeFile(file, JSON.stringify([{ ...instanceFields, instance_id: "demo__big-2", patch: bigPatch }]));
    served = await servePurple(createGoldSolver({ datasets: [file] }));
    const repo = await freshRepo("big-target");
    const environment = new BashEnvironment(repo);
    const record = await runEpisode({
      instruction: "grow f",
      facts: { benchmark: "swebench", instance_id: "demo__big-2" },
      participant: createA2ATurnSender({ url: served.url }),
      environment,
    });
    expect(record.error).toBeUndefined();
    expect(record).toMatchObject({ exit_status: "final", final_output: "git apply of the gold patch: done" });
    expect(environment.commands.length).toBeGreaterThan(2);
    expect(environment.commands.at(-1)).toMatch(
      /^git apply --verbose '(\/tmp\/a2a-bench-gold-[0-9a-f]{16}\.patch)'; s=\$\?; rm -f '\1'; exit \$s$/,
    );
    const patchFile = /'(\/tmp\/[^']+)'/.exec(environment.commands.at(-1)!)![1]!;
    await expect(readFile(patchFile)).rejects.toThrow(/ENOENT/); // removed after use
    expect(await readFile(join(repo, "f.py"), "utf8")).toBe(lines.join("\n") + "\n");
  });

  test("HumanEval: the canonical solution written to solution.py, final with the single-shot gold answer", async () => {
    served = await servePurple(createGoldSolver());
    const p = SAMPLE_PROBLEMS[2]!;
    const work = await mkdtemp(join(dir, "he-"));
    const record = await runEpisode({
      instruction: p.prompt,
      facts: { benchmark: "humaneval", instance_id: p.task_id },
      participant: createA2ATurnSender({ url: served.url }),
      environment: new BashEnvironment(work),
    });
    expect(record).toMatchObject({ exit_status: "final", commands: 1 });
    expect(record.final_output).toBe("```python\n" + p.canonical_solution + "```\n");
    expect(await readFile(join(work, HUMANEVAL_SOLUTION_FILE), "utf8")).toBe(p.prompt + p.canonical_solution);
  });

  test("a task it has no answer for ends final at once, saying why; single-shot gold is unchanged", async () => {
    served = await servePurple(createGoldSolver());
    const green = await converse(served.url);
    const task = { kind: "task", instruction: "x" };
    const unknown = await green.send(task);
    expect(unknown.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(unknown.action).toMatchObject({ kind: "final" });
    expect(String(unknown.action!["output"])).toMatch(
      new RegExp(`^${GOLD_CANNOT} the task names no benchmark or instance, and it cannot be identified: no known`),
    );
    expect((await green.send({ ...task, benchmark: "chess", instance_id: "1" })).action!["output"]).toContain(
      'no interactive gold answers for benchmark "chess"',
    );
    expect((await green.send({ ...task, benchmark: "swebench" })).action!["output"]).toContain(
      "names no `instance_id`",
    );
    const missing = await green.send({ ...task, benchmark: "humaneval", instance_id: "HumanEval/99999" });
    expect(missing.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(missing.action!["output"]).toContain("no reference solution for HumanEval/99999");
    // Every one of those ended its episode: a result after it has none to go to.
    expect((await green.send(result(0))).state).toBe(TaskState.TASK_STATE_FAILED);
  });

  test("a task naming only its instruction (RDI's Terminal-Bench green) is identified by it, then solved", async () => {
    served = await servePurple(createGoldSolver({ datasets: [instances] }));
    const work = await freshRepo("by-instruction");
    // Our SWE-bench instruction wraps the problem statement; whitespace differs on the way.
    const instruction = `Fix this in the repository.\n\nIssue:\n  ${instanceFields.problem_statement.replace(/ /g, "\n  ")}\n`;
    const record = await runEpisode({
      instruction,
      participant: createA2ATurnSender({ url: served.url }),
      environment: new BashEnvironment(work),
    });
    expect(record).toMatchObject({ exit_status: "final", commands: 1 });
    expect(await readFile(join(work, "f.py"), "utf8")).toBe(AFTER);
  });

  test("a HumanEval prompt alone is identified too: solution.py and the gold answer", async () => {
    served = await servePurple(createGoldSolver());
    const p = SAMPLE_PROBLEMS[4]!;
    const work = await mkdtemp(join(dir, "he-id-"));
    const record = await runEpisode({
      instruction: `Complete the function.\n\n\`\`\`python\n${p.prompt.trimEnd()}\n\`\`\``,
      participant: createA2ATurnSender({ url: served.url }),
      environment: new BashEnvironment(work),
    });
    expect(record.final_output).toBe("```python\n" + p.canonical_solution + "```\n");
    expect(await readFile(join(work, HUMANEVAL_SOLUTION_FILE), "utf8")).toBe(p.prompt + p.canonical_solution);
  });

  test("RDI's Terminal-Bench green, as it asks (streamed, the task naming only its instruction): the last state completed, the action in the artifact", async () => {
    served = await servePurple(createGoldSolver());
    const p = SAMPLE_PROBLEMS[3]!;
    const client = await createA2AClient(served.url, "0.3");
    const events = await collect(
      client.sendMessageStream({
        tenant: "",
        message: userMessage([
          textPart(JSON.stringify({ kind: "task", protocol: "terminal-bench-shell-v1", instruction: p.prompt })),
        ]),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    const last = events.at(-1)!.payload!;
    expect(last.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // What that green joins: the final status message's text (none) and every artifact's.
    expect(last.$case === "statusUpdate" && last.value.status?.message).toBeFalsy();
    const artifacts = events.flatMap((e) => (e.payload?.$case === "artifactUpdate" ? [e.payload.value.artifact!] : []));
    expect(artifacts).toHaveLength(1);
    const action = JSON.parse(joinedText(artifacts[0]!.parts)) as Record<string, unknown>;
    expect(action).toMatchObject({ kind: "exec_request" });
    expect(String(action["command"])).toContain(p.entry_point);
  });

  test("the most specific match wins: an instruction holding two prompts is the longer one's", async () => {
    served = await servePurple(createGoldSolver());
    const [a, b] = [SAMPLE_PROBLEMS[0]!, SAMPLE_PROBLEMS[1]!];
    const longer = a.prompt.length > b.prompt.length ? a : b;
    const green = await converse(served.url);
    const identified = await green.send({ kind: "task", instruction: `${a.prompt}\n\n${b.prompt}` });
    expect(identified.action).toMatchObject({ kind: "exec_request" });
    expect(String(identified.action!["command"])).toContain(longer.entry_point);
  });

  test("two instances matching equally well are not guessed at: final, saying which", async () => {
    const twins = join(dir, "twins.json");
    await writeFile(
      twins,
      JSON.stringify([
        { ...instanceFields, instance_id: "demo__demo-1", patch },
        { ...instanceFields, instance_id: "demo__demo-2", patch, problem_statement: "g returns the wrong thing" },
      ]),
    );
    served = await servePurple(createGoldSolver({ datasets: [twins] }));
    const green = await converse(served.url);
    const reply = await green.send({
      kind: "task",
      instruction: "f returns the wrong thing; g returns the wrong thing",
    });
    expect(reply.action).toMatchObject({ kind: "final" });
    expect(String(reply.action!["output"])).toMatch(/swebench:demo__demo-1 and swebench:demo__demo-2 equally well/);
  });
});
