import { describe, expect, it } from "vitest";
import { addedOnPath, parseReward, tamperedPaths } from "../../../src/benchmarks/terminal/verdict.js";
import { mapBaseImages } from "../../../src/benchmarks/terminal/image.js";
import { aggregateTerminal, attemptIds } from "../../../src/benchmarks/terminal/definition.js";
import type { TerminalRow } from "../../../src/benchmarks/terminal/row.js";

describe("the terminal verdict's pure parts", () => {
  it("reads reward.json's reward (or its one number) and reward.txt's number; says why otherwise", () => {
    expect(parseReward("reward.txt", "1\n")).toEqual({ reward: 1 });
    expect(parseReward("reward.txt", "0.25")).toEqual({ reward: 0.25 });
    expect(parseReward("reward.txt", "yes")).toEqual({ problem: expect.stringMatching(/no number/) });
    expect(parseReward("reward.json", '{"reward": 0.5, "x": 2}')).toEqual({
      reward: 0.5,
      details: { reward: 0.5, x: 2 },
    });
    expect(parseReward("reward.json", '{"accuracy": 0.75}')).toMatchObject({ reward: 0.75 });
    expect(parseReward("reward.json", '{"a": 1, "b": 2}')).toEqual({
      problem: expect.stringMatching(/not exactly one/),
    });
    expect(parseReward("reward.json", "nope")).toEqual({ problem: "reward.json is not JSON" });
  });

  it("flags changed system files, start-up hooks and root pytest config, not parents, caches or new work files", () => {
    const flagged = tamperedPaths([
      { kind: "C", path: "/usr" },
      { kind: "C", path: "/usr/bin" },
      { kind: "C", path: "/usr/bin/cat" },
      { kind: "D", path: "/usr/bin/timeout" },
      { kind: "A", path: "/usr/lib/python3/dist-packages/evil.pth" },
      { kind: "A", path: "/usr/lib/python3.11/__pycache__/x.cpython-311.pyc" },
      { kind: "A", path: "/conftest.py" },
      { kind: "A", path: "/etc/ld.so.preload" },
      { kind: "C", path: "/app" },
      { kind: "A", path: "/app/greeting.txt" },
      { kind: "A", path: "/usr/local/bin/mytool" },
    ]);
    expect(flagged).toEqual([
      "C /usr/bin/cat",
      "D /usr/bin/timeout",
      "A /usr/lib/python3/dist-packages/evil.pth",
      "A /conftest.py",
      "A /etc/ld.so.preload",
    ]);
    expect(
      addedOnPath([
        { kind: "A", path: "/usr/local/bin/bash" },
        { kind: "A", path: "/usr/local/bin/x/y" },
        { kind: "A", path: "/app/bash" },
      ]),
    ).toEqual(["/usr/local/bin/bash"]);
  });

  it("maps FROM images (not earlier stages, flags kept) to the operator's local images", () => {
    const { text, bases } = mapBaseImages(
      "FROM --platform=linux/amd64 ubuntu:24.04 AS build\nRUN true\nFROM build\nFROM python:3.12 AS final\n",
      { "ubuntu:24.04": "local/base:1" },
    );
    expect(text).toBe(
      "FROM --platform=linux/amd64 local/base:1 AS build\nRUN true\nFROM build\nFROM python:3.12 AS final\n",
    );
    expect(bases).toEqual(["local/base:1", "python:3.12"]);
  });

  it("aggregates: reward mean over scored attempts, pass@k per task, refusals, cache hits, per-task timing", () => {
    expect(attemptIds("t", 1)).toEqual(["t"]);
    expect(attemptIds("t", 3)).toEqual(["t#1", "t#2", "t#3"]);
    const row = (id: string, task: string, passed: boolean, extra: Partial<TerminalRow> = {}): TerminalRow => ({
      id,
      task_id: task,
      attempt: 1,
      instruction: "",
      status: passed ? "passed" : "failed",
      passed,
      reward: passed ? 1 : 0,
      elapsed_seconds: 10,
      image_cache_hit: true,
      ...extra,
    });
    const agg = aggregateTerminal(
      [
        row("a#1", "a", true, { image_cache_hit: false, build_seconds: 4 }),
        row("a#2", "a", false),
        row("b#1", "b", false),
        row("b#2", "b", false),
        row("c#1", "c", false, { status: "unsupported", reward: null, unsupported: ["GPUs"] }),
        row("c#2", "c", false, { status: "error", reward: null, failure_mode: "infrastructure_sandbox" }),
      ],
      [1, 2],
    );
    expect(agg).toMatchObject({
      reward_mean: 0.25,
      "pass@1": 0.25,
      "pass@2": 0.5,
      attempts: { scored: 4, errors: 1 },
      unsupported: [{ task_id: "c", reasons: ["GPUs"] }],
      image_cache_hits: 5,
      image_builds: 1,
      tasks: { a: { attempts: 2, passed: 1, reward_mean: 0.5, mean_seconds: 10, build_seconds: 4 } },
    });
  });
});
