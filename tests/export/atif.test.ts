/**
 * ATIF export: a real episode (the episode loop with a scripted participant and environment) writes its
 * trajectory, the export turns it into an ATIF v1.7 document that passes the schema and the rules a schema
 * cannot state; the check itself rejects each kind of violation; the CLI writes whole files and refuses bad input.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runEpisode } from "../../src/interactive/episode.js";
import { readTrajectory, trajectoryFile } from "../../src/interactive/trajectory.js";
import { trajectoryToAtif, type AtifTrajectory } from "../../src/export/atif.js";
import { atifProblems } from "../../src/export/atif-check.js";
import { parseExportArgs } from "../../src/cli/export.js";
import { main } from "../../src/cli.js";
import { FakeEnvironment, outcome, ScriptedSender } from "../interactive/fakes.js";
import { jsonTask, messageReply, textPart } from "../interactive/replies.js";
import { Writable } from "node:stream";

function sink(): { stream: Writable; text: () => string } {
  let text = "";
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return { stream, text: () => text };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-atif-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A real episode's trajectory at `path`: two commands, a reply that is not an action, then a final answer. */
async function episodeAt(path: string): Promise<void> {
  await runEpisode({
    instruction: "fix the bug",
    participant: new ScriptedSender([
      jsonTask({ kind: "exec_request", command: "ls -la" }),
      jsonTask({ kind: "exec_request", command: "false" }),
      messageReply([textPart('{"kind": "nonsense"}')]),
      jsonTask({ kind: "final", output: "done: the bug is fixed" }),
    ]),
    environment: new FakeEnvironment((command) =>
      command === "ls -la" ? outcome({ stdout: "a.py\n", exitCode: 0 }) : outcome({ stderr: "no\n", exitCode: 1 }),
    ),
    trajectory: trajectoryFile(path),
  });
}

async function exported(): Promise<AtifTrajectory> {
  const path = join(dir, "trajectory.jsonl");
  await episodeAt(path);
  const { lines } = await readTrajectory(path);
  return trajectoryToAtif(lines, { agentName: "p", agentVersion: "1.0" });
}

describe("trajectoryToAtif", () => {
  it("turns a real episode into a valid ATIF v1.7 document: the task, each command with its observation, the answer", async () => {
    const doc = await exported();
    expect(atifProblems(doc)).toEqual([]);
    expect(doc.schema_version).toBe("ATIF-v1.7");
    expect(doc.agent).toEqual({ name: "p", version: "1.0" });
    expect(doc.steps.map((s) => [s.step_id, s.source])).toEqual([
      [1, "user"],
      [2, "agent"],
      [3, "agent"],
      [4, "agent"],
      [5, "agent"],
    ]);
    expect(JSON.parse(doc.steps[0]!.message)).toMatchObject({ kind: "task", instruction: "fix the bug" });
    const [ls, fails, invalid, final] = doc.steps.slice(1);
    expect(ls!.tool_calls).toEqual([
      {
        tool_call_id: "turn-1",
        function_name: "bash",
        arguments: { command: "ls -la", timeout_s: expect.any(Number) },
      },
    ]);
    // The observation is the exec_result the participant was sent.
    const seen = JSON.parse(ls!.observation!.results[0]!.content!) as Record<string, unknown>;
    expect(ls!.observation!.results[0]!.source_call_id).toBe("turn-1");
    expect(seen).toMatchObject({ kind: "exec_result", exit_code: 0, stdout: "a.py\n" });
    expect(fails!.extra).toMatchObject({ command: { exit_code: 1, timed_out: false } });
    expect(invalid!.tool_calls).toBeUndefined();
    expect(invalid!.extra!["invalid"]).toEqual(expect.any(String));
    expect(final!.message).toBe("done: the bug is fixed");
    expect(doc.final_metrics!.total_steps).toBe(5);
    expect(doc.extra).toMatchObject({ exporter: "a2a-bench", exit_status: "final", turns: 4, commands: 2 });
  });

  it("keeps the size and hash of each reply's wire body, never the body itself", async () => {
    const path = join(dir, "trajectory.jsonl");
    await episodeAt(path);
    const { lines } = await readTrajectory(path);
    const body = '{"jsonrpc":"2.0","id":1,"result":{}}';
    const wire = {
      http_status: 200,
      content_type: "application/json",
      bytes: 36,
      sha256: "ab".repeat(32),
      complete: true,
      body_encoding: "utf-8" as const,
      body,
    };
    const withWire = lines.map((l) => (l.type === "turn" ? { ...l, wire } : l));
    const doc = trajectoryToAtif(withWire, { agentName: "p", agentVersion: "1" });
    expect(atifProblems(doc)).toEqual([]);
    expect(doc.steps[1]!.extra!["wire"]).toEqual({ bytes: 36, sha256: "ab".repeat(32), complete: true });
    expect(JSON.stringify(doc)).not.toContain('"jsonrpc"');
  });
});

// A document under mutation: any path may be written to.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = Record<string, any>;

describe("atifProblems", () => {
  const cases: Array<[string, (d: Doc) => void, RegExp]> = [
    ["an unknown root key", (d) => (d["surprise"] = 1), /\/: unknown key "surprise"/],
    ["an unknown step key", (d) => (d["steps"][1]["note"] = "x"), /\/steps\/1: unknown key "note"/],
    ["another schema version", (d) => (d["schema_version"] = "ATIF-v2.0"), /schema_version/],
    ["no steps", (d) => (d["steps"] = []), /steps/],
    ["a step id out of order", (d) => (d["steps"][2]["step_id"] = 7), /\/steps\/2\/step_id: expected 3, got 7/],
    [
      "tool calls on a user step",
      (d) => (d["steps"][0]["tool_calls"] = []),
      /\/steps\/0\/tool_calls: only an agent step/,
    ],
    [
      "a result naming another step's call",
      (d) => (d["steps"][1]["observation"]["results"][0]["source_call_id"] = "turn-2"),
      /"turn-2" is not a tool call of this step/,
    ],
    ["a timestamp that is not ISO 8601", (d) => (d["steps"][0]["timestamp"] = "yesterday"), /timestamp/],
    ["arguments that are not an object", (d) => (d["steps"][1]["tool_calls"][0]["arguments"] = "ls"), /arguments/],
    ["a fractional token count", (d) => (d["final_metrics"]["total_prompt_tokens"] = 1.5), /total_prompt_tokens/],
  ];
  it.each(cases)("rejects %s", async (_name, mutate, pattern) => {
    const doc = structuredClone(await exported()) as unknown as Doc;
    mutate(doc);
    expect(atifProblems(doc).join("\n")).toMatch(pattern);
  });
});

describe("a2a-bench export", () => {
  it("writes one checked document beside each trajectory of a run, or under --out mirroring the run", async () => {
    const run = join(dir, "run");
    await episodeAt(join(run, "swebench", "a__b-1", "trajectory.jsonl"));
    await episodeAt(join(run, "swebench", "a__b-2", "trajectory.jsonl"));
    const out = sink();
    expect(await main(["export", "--format", "atif", run], { stdout: out.stream, stderr: out.stream, env: {} })).toBe(
      0,
    );
    expect(out.text()).toContain("exported 2 trajectories as ATIF v1.7");
    const doc = JSON.parse(await readFile(join(run, "swebench", "a__b-1", "trajectory.atif.json"), "utf8")) as unknown;
    expect(atifProblems(doc)).toEqual([]);
    expect((doc as AtifTrajectory).extra!["source"]).toBe(join("swebench", "a__b-1", "trajectory.jsonl"));

    const elsewhere = join(dir, "atif");
    expect(
      await main(["export", "--format", "atif", run, "--out", elsewhere, "--agent-name", "my-agent"], {
        stdout: out.stream,
        stderr: out.stream,
        env: {},
      }),
    ).toBe(0);
    expect(await readdir(join(elsewhere, "swebench"))).toEqual(["a__b-1", "a__b-2"]);
    expect(await readdir(join(elsewhere, "swebench", "a__b-2"))).toEqual(["trajectory.atif.json"]); // no temporary left
  });

  it("drops a torn last line and says so", async () => {
    const path = join(dir, "trajectory.jsonl");
    await episodeAt(path);
    await writeFile(path, (await readFile(path, "utf8")) + '{"type":"turn","tu');
    const out = sink();
    expect(await main(["export", "--format", "atif", path], { stdout: out.stream, stderr: out.stream, env: {} })).toBe(
      0,
    );
    expect(out.text()).toContain("its torn last line left out");
  });

  it("refuses bad usage (exit 2) and a run without trajectories (exit 1), naming the problem", async () => {
    expect(() => parseExportArgs(["x"])).toThrow("--format is required (atif)");
    expect(() => parseExportArgs(["--format", "atf", "x"])).toThrow(
      '--format must be one of atif, got "atf" (did you mean "atif"?)',
    );
    expect(() => parseExportArgs(["--format", "atif"])).toThrow("expected exactly one PATH, got 0");
    const empty = join(dir, "empty");
    await mkdir(empty);
    const out = sink();
    expect(await main(["export", "--format", "atif", empty], { stdout: out.stream, stderr: out.stream, env: {} })).toBe(
      1,
    );
    expect(out.text()).toContain("no trajectory.jsonl below it");
    expect(
      await main(["export", "--format", "atif", join(dir, "nope")], {
        stdout: out.stream,
        stderr: out.stream,
        env: {},
      }),
    ).toBe(1);
    expect(out.text()).toContain("no such file or directory");
  });
});
