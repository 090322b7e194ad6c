import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { appendFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bounded, readTrajectory, trajectoryFile, type TurnLine } from "../../src/interactive/trajectory.js";
import { runEpisode } from "../../src/interactive/episode.js";
import { FakeEnvironment, never, ScriptedSender } from "./fakes.js";
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

describe("bounded", () => {
  test("keeps short text, cuts long text to head + tail", () => {
    expect(bounded("abc")).toBe("abc");
    const cut = bounded("x".repeat(100), 10);
    expect(cut).toContain("90 characters elided");
  });
});
