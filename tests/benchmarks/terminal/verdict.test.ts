import { describe, expect, it } from "vitest";
import { addedOnPath, environmentLost, parseReward, tamperedPaths } from "../../../src/benchmarks/terminal/verdict.js";
import { TerminalVerifierError } from "../../../src/benchmarks/terminal/errors.js";
import type { Environment, EnvironmentExecOutcome } from "../../../src/sandbox/environment.js";
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

  it("flags any file added, changed or deleted where python imports from and in git, pip or uv configuration", () => {
    const flagged = tamperedPaths([
      { kind: "C", path: "/root" },
      { kind: "A", path: "/root/.local" },
      { kind: "A", path: "/root/.local/lib" },
      { kind: "A", path: "/root/.local/lib/python3.12/site-packages/pytest" },
      { kind: "A", path: "/root/.local/lib/python3.12/site-packages/pytest/__main__.py" },
      { kind: "C", path: "/usr/local/lib/python3.11/dist-packages" },
      { kind: "A", path: "/usr/local/lib/python3.11/dist-packages/pytest/__init__.py" },
      { kind: "A", path: "/opt/venv/lib/python3.12/site-packages/_pytest/main.py" },
      { kind: "A", path: "/usr/lib/python3.12/pytest.py" },
      { kind: "A", path: "/usr/lib/python3/dist-packages/pytest/__pycache__/x.pyc" },
      { kind: "A", path: "/etc/gitconfig" },
      { kind: "A", path: "/etc/pip.conf" },
      { kind: "A", path: "/root/.config/pip/pip.conf" },
      { kind: "A", path: "/root/.config/uv/uv.toml" },
      { kind: "C", path: "/root/.gitconfig" },
      { kind: "A", path: "/root/.bash_history" },
      { kind: "A", path: "/app/venv-notes.txt" },
    ]);
    expect(flagged).toEqual([
      "A /root/.local/lib/python3.12/site-packages/pytest/__main__.py",
      "A /usr/local/lib/python3.11/dist-packages/pytest/__init__.py",
      "A /opt/venv/lib/python3.12/site-packages/_pytest/main.py",
      "A /usr/lib/python3.12/pytest.py",
      "A /etc/gitconfig",
      "A /etc/pip.conf",
      "A /root/.config/pip/pip.conf",
      "A /root/.config/uv/uv.toml",
      "C /root/.gitconfig",
    ]);
  });

  it("puts an environment gone or a harness step killed while the engine answers down to the participant", async () => {
    const fake = (probe: Partial<EnvironmentExecOutcome>, backend: string | null): Environment => ({
      id: "fake",
      exec: () =>
        Promise.resolve({ output: "", exitCode: 0, timedOut: false, isCanceled: false, durationMs: 1, ...probe }),
      readFile: () => Promise.reject(new Error("unused")),
      writeFile: () => Promise.reject(new Error("unused")),
      backendProblem: () => Promise.resolve(backend),
      close: () => Promise.resolve(),
    });
    const gone = { exitCode: null, output: "exec create: the engine answered 409: Container x is not running" };
    const plain = new TerminalVerifierError("step failed (exit 1)");
    const killed = new TerminalVerifierError("step failed (exit 137)", true);
    expect(await environmentLost(fake(gone, null), plain)).toMatch(/no longer runs commands.*not running/);
    expect(await environmentLost(fake(gone, "the container engine stopped answering"), plain)).toBeNull();
    expect(await environmentLost(fake({ infraError: "the environment is closed" }, null), plain)).toBeNull();
    expect(await environmentLost(fake({ limitExceeded: "disk: over 1 GiB" }, null), plain)).toMatch(/disk/);
    expect(await environmentLost(fake({}, null), killed)).toMatch(/exit 137/);
    expect(await environmentLost(fake({}, "the container engine stopped answering"), killed)).toBeNull();
    expect(await environmentLost(fake({}, null), plain)).toBeNull();
    expect(await environmentLost(fake({}, null), new Error("other"))).toBeNull();
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
