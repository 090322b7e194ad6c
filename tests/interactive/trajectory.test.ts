import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createHash } from "node:crypto";
import { appendFile, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bounded, readTrajectory, trajectoryFile, type TurnLine } from "../../src/interactive/trajectory.js";
import { runEpisode } from "../../src/interactive/episode.js";
import type { EpisodeRecord } from "../../src/interactive/episode-record.js";
import { createA2ATurnSender } from "../../src/interactive/a2a-sender.js";
import { FakeEnvironment, MemoryTrajectory, never, outcome, ScriptedSender } from "./fakes.js";
import { startFakeParticipant, type FakeOptions, type FakeParticipant } from "../a2a/fake-participant.js";
import { deepArray } from "../a2a/bombs.js";
import { jsonTask } from "./replies.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-bench-trajectory-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const turnLine = (turn: number, text: string): TurnLine => ({
  type: "turn",
  turn,
  sent_at: new Date().toISOString(),
  replied_at: null,
  sent: { message_id: `m${turn}`, context_id: "", task_id: "", text },
});

describe("trajectoryFile", () => {
  test("appends one JSON line per write, in order, creating the directory", async () => {
    const path = join(dir, "nested", "episode.jsonl");
    const sink = trajectoryFile(path);
    // Not awaited one by one: the writes are queued, never interleaved.
    await Promise.all([1, 2, 3].map((n) => sink.write(turnLine(n, "line\nwith newline"))));
    await sink.close();
    const text = await readFile(path, "utf8");
    expect(text.split("\n")).toHaveLength(4); // 3 lines + the final newline
    const { lines, tornLastLine } = await readTrajectory(path);
    expect(tornLastLine).toBe(false);
    expect(lines.map((l) => (l.type === "turn" ? l.turn : 0))).toEqual([1, 2, 3]);
  });

  test("a torn last line (a crash mid-write) is reported and dropped, the turns before it kept", async () => {
    const path = join(dir, "t.jsonl");
    const sink = trajectoryFile(path);
    await sink.write(turnLine(1, "a"));
    await sink.close();
    await appendFile(path, '{"type":"turn","tu');
    const { lines, tornLastLine } = await readTrajectory(path);
    expect(tornLastLine).toBe(true);
    expect(lines).toHaveLength(1);
  });

  test("a write that fails rejects, and the episode with it", async () => {
    await appendFile(join(dir, "blocker"), "");
    const sink = trajectoryFile(join(dir, "blocker", "t.jsonl")); // a file where a directory should be
    await expect(sink.write(turnLine(1, "x"))).rejects.toThrow();
    await expect(
      runEpisode({
        instruction: "x",
        participant: new ScriptedSender([jsonTask({ kind: "final" })]),
        environment: new FakeEnvironment(),
        trajectory: trajectoryFile(join(dir, "blocker", "u.jsonl")),
      }),
    ).rejects.toThrow();
  });

  test("an episode cut short leaves the turns so far on disk", async () => {
    const path = join(dir, "cut.jsonl");
    const sink = trajectoryFile(path);
    const controller = new AbortController();
    const participant = new ScriptedSender([
      jsonTask({ kind: "exec_request", command: "ls" }),
      jsonTask({ kind: "exec_request", command: "pwd" }),
      never,
    ]);
    const episode = runEpisode({
      instruction: "x",
      participant,
      environment: new FakeEnvironment(),
      trajectory: sink,
      signal: controller.signal,
    });
    // While the third turn hangs, the first two are already on disk.
    await expect.poll(async () => (await readTrajectory(path)).lines.length, { timeout: 30_000 }).toBe(3);
    controller.abort();
    await episode;
    await sink.close();
    const { lines } = await readTrajectory(path);
    expect(lines.map((l) => l.type)).toEqual(["episode_start", "turn", "turn", "turn", "episode_end"]);
  });
});

describe("trajectoryFile's bound", () => {
  test("at the smallest bound (2 MiB) and the most turns (250), lines of long participant texts stay within it", async () => {
    const maxBytes = 2 * 1024 * 1024;
    const path = join(dir, "bound.jsonl");
    const sink = trajectoryFile(path, maxBytes);
    const limits = { maxTurns: 250, episodeTimeS: 1800, turnTimeoutS: 300, commandTimeoutS: 60 };
    await sink.write({ type: "episode_start", at: new Date().toISOString(), protocol: "p", limits, facts: {} });
    const long = (c: string): string => c.repeat(100_000);
    for (let turn = 1; turn <= 250; turn++) {
      const line = turnLine(turn, long("s"));
      line.reply = { state: "completed", context_id: long("c"), task_id: "t", message_id: "m" };
      line.action = { type: "final", output: long("o"), dialect: "text" };
      await sink.write(line);
    }
    const record = { ...recordBase, final_output: long("f") };
    await sink.write({ type: "episode_end", at: new Date().toISOString(), record });
    await sink.close();
    expect((await stat(path)).size).toBeLessThanOrEqual(maxBytes);
    const { lines } = await readTrajectory(path);
    expect(lines).toHaveLength(252);
    let whole = 0;
    for (const l of lines.slice(1)) {
      const marks = l as { elided?: unknown[]; line_elided?: unknown };
      if (marks.elided !== undefined || marks.line_elided !== undefined) continue;
      // A line not marked was written whole.
      expect(l.type === "turn" && l.sent.text.length === 100_000 && l.action).toMatchObject({ output: long("o") });
      whole++;
    }
    expect(whole).toBeLessThan(10); // the first lines fit; the rest were cut, each cut counted and hashed
    expect(lines.at(-1)).toMatchObject({ type: "episode_end", record: { exit_status: "final", turns: 250 } });
  }, 60_000);
});

describe("bounded", () => {
  test("keeps short text, cuts long text to head + tail", () => {
    expect(bounded("abc")).toBe("abc");
    const cut = bounded("x".repeat(100), 10);
    expect(cut).toContain("90 characters elided");
  });
});

/** The 0.3 JSON-RPC body of a task whose artifact's one text part is `text` (what a purple of the field sends). */
function taskBody(id: unknown, text: string, pad = ""): string {
  return (
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"kind":"task","id":"t-${String(id)}","contextId":"ctx",` +
    `"status":{"state":"completed"},"artifacts":[{"artifactId":"a","parts":[{"kind":"text","text":${JSON.stringify(text)}}]}]` +
    `${pad === "" ? "" : `,"metadata":{"pad":${JSON.stringify(pad)}}`}}}`
  );
}

const sha256 = (data: string | Buffer): string => createHash("sha256").update(data).digest("hex");

const recordBase: EpisodeRecord = {
  exit_status: "final",
  turns: 250,
  commands: 0,
  invalid_replies: 0,
  command_seconds: 0,
  participant_seconds: 0,
  wall_seconds: 0,
  truncations: 0,
  context_id: "c",
};

describe("what a turn records of the wire (a participant on loopback)", () => {
  const fakes: FakeParticipant[] = [];
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((f) => f.close()));
  });
  async function fake(answer: FakeOptions["answer"]): Promise<FakeParticipant> {
    const f = await startFakeParticipant({ answer });
    fakes.push(f);
    return f;
  }

  test("the reply's body byte for byte, with its content type and hash, beside the decoded action", async () => {
    const sent: string[] = [];
    const f = await fake(() => ({
      kind: "raw",
      headers: { "content-type": "application/json; charset=utf-8" },
      // Odd spacing, key order and a non-ASCII character: what the SDK decodes loses all three.
      body: (id) => {
        const body = `{ "id" : ${JSON.stringify(id)}, "jsonrpc":"2.0",\n  "result": {"role":"agent","kind":"message","messageId":"m","parts":[{"kind":"text","text":"{\\"kind\\":\\"final\\",\\"output\\":\\"café\\"}"}]} }`;
        sent.push(body);
        return body;
      },
    }));
    const path = join(dir, "t.jsonl");
    const sink = trajectoryFile(path);
    const record = await runEpisode({
      instruction: "x",
      participant: createA2ATurnSender({ url: f.url }),
      environment: new FakeEnvironment(),
      trajectory: sink,
    });
    await sink.close();
    expect(record).toMatchObject({ exit_status: "final", final_output: "café" });
    const turn = (await readTrajectory(path)).lines.find((l): l is TurnLine => l.type === "turn")!;
    expect(turn.wire).toEqual({
      http_status: 200,
      content_type: "application/json; charset=utf-8",
      bytes: Buffer.byteLength(sent[0]!),
      sha256: sha256(sent[0]!),
      complete: true,
      body_encoding: "utf-8",
      body: sent[0],
    });
    expect(turn.action).toEqual({ type: "final", output: "café", dialect: "terminal-bench" });
    expect(turn.reply).toEqual({ state: "message", context_id: "", task_id: "", message_id: "m" });
  });

  test("a gzip reply is recorded decoded, with its content encoding named", async () => {
    let plain = "";
    const f = await fake(() => ({
      kind: "raw",
      headers: { "content-encoding": "gzip" },
      body: (id) => gzipSync((plain = taskBody(id, '{"kind":"final","output":"ok"}'))),
    }));
    const trajectory = new MemoryTrajectory();
    await runEpisode({
      instruction: "x",
      participant: createA2ATurnSender({ url: f.url }),
      environment: new FakeEnvironment(),
      trajectory,
    });
    const turn = trajectory.lines.find((l): l is TurnLine => l.type === "turn")!;
    expect(turn.wire).toMatchObject({ content_encoding: "gzip", body: plain, sha256: sha256(plain), complete: true });
  });

  test("a reply nested 300,000 deep ends the episode as the participant's failure; the bytes read are recorded", async () => {
    const f = await fake(() => ({
      kind: "raw",
      body: (id) => taskBody(id, "x").replace('"kind":"task"', `"kind":"task","x":${deepArray(300_000)}`),
    }));
    const trajectory = new MemoryTrajectory();
    const record = await runEpisode({
      instruction: "x",
      participant: createA2ATurnSender({ url: f.url }),
      environment: new FakeEnvironment(),
      trajectory,
    });
    expect(record).toMatchObject({
      exit_status: "participant_error",
      error: { code: "E_PARTICIPANT_REPLY_TOO_DEEP" },
    });
    const turn = trajectory.lines.find((l): l is TurnLine => l.type === "turn")!;
    expect(turn.wire).toMatchObject({ http_status: 200, complete: false });
    expect(turn.wire!.bytes).toBeLessThan(600_000);
  });

  test("30 turns of 2.2 MB replies and 2.2 MB outputs: the file stays under its bound, every cut counted and hashed", async () => {
    const MiB = 1024 * 1024;
    const maxBytes = 2 * MiB;
    const bodies: string[] = [];
    const f = await fake((n) => ({
      kind: "raw",
      body: (id) => {
        const action = JSON.stringify({ kind: "exec_request", command: `echo ${n} ${"c".repeat(60_000)}` });
        const body = taskBody(id, action, String(n % 10).repeat(2_200_000));
        bodies.push(body);
        return body;
      },
    }));
    const output = "o".repeat(2_200_000);
    const path = join(dir, "big.jsonl");
    const sink = trajectoryFile(path, maxBytes);
    const record = await runEpisode({
      instruction: "x",
      limits: { maxTurns: 30 },
      participant: createA2ATurnSender({ url: f.url }),
      environment: new FakeEnvironment(() => outcome({ stdout: output, stderr: "" })),
      trajectory: sink,
    });
    await sink.close();
    expect(record).toMatchObject({ exit_status: "turn_limit", turns: 30, commands: 30 });
    expect((await stat(path)).size).toBeLessThanOrEqual(maxBytes);
    const { lines } = await readTrajectory(path);
    expect(lines.map((l) => l.type)).toEqual(["episode_start", ...Array<string>(30).fill("turn"), "episode_end"]);
    const turns = lines.filter((l): l is TurnLine => l.type === "turn");
    for (const [i, t] of turns.entries()) {
      // The wire record's own hash and size are of the whole body, whatever the line kept of it.
      expect(t.wire).toMatchObject({ bytes: bodies[i]!.length, sha256: sha256(bodies[i]!), complete: true });
      // Each command: what the participant was sent (10,000 characters), the whole output's size and hash.
      expect(t.command?.stdout).toMatchObject({ elided_chars: 2_190_000, bytes: 2_200_000, sha256: sha256(output) });
      const elided = (t as TurnLine & { elided?: { field: string; bytes: number; sha256: string }[] }).elided;
      const skeleton = (t as { line_elided?: { bytes: number; sha256: string } }).line_elided;
      // Nothing cut silently: a line that is not whole says what was cut (its fields or the whole line).
      expect(elided !== undefined || skeleton !== undefined).toBe(true);
      const body = elided?.find((e) => e.field === "wire.body");
      if (body) expect(body).toMatchObject({ bytes: bodies[i]!.length, sha256: sha256(bodies[i]!) });
      if (skeleton) expect(skeleton.bytes).toBeGreaterThan(2_200_000);
    }
    // The first turns keep what their share allows; the action (60 KB) stays whole while the budget lasts.
    expect(turns[0]!.action).toMatchObject({ type: "exec", command: expect.stringMatching(/^echo 0 c{60000}$/) });
  }, 120_000);
});
