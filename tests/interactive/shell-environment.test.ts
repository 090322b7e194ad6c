/**
 * The wrapper on a real bash: a local ArgvHost runs the argv through the project's process layer,
 * either with stdout and stderr interleaved (the marker wrapper) or keeping them apart on request
 * (`separateStreams`: the sh wrapper with no marker, as the docker environments do).
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runChild } from "../../src/process/index.js";
import { shellEnvironment, splitWrapped, type ArgvHost } from "../../src/interactive/shell-environment.js";
import { runEpisode } from "../../src/interactive/episode.js";
import { SUBMIT_SENTINEL } from "../../src/interactive/sentinel.js";
import { ScriptedSender } from "./fakes.js";
import { jsonTask } from "./replies.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-bench-shell-env-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Streams = "interleaved" | "separate";

/** Runs argv in `cwd`, stderr folded into stdout unless `streams` is "separate"; records the limits it was given. */
function makeHost(streams: Streams) {
  return (cwd: string, seen: { timeoutMs: number; streams?: string }[] = []): ArgvHost => ({
    ...(streams === "separate" ? { separateStreams: true } : {}),
    async exec(argv, options) {
      seen.push({ timeoutMs: options.timeoutMs, ...(options.streams ? { streams: options.streams } : {}) });
      const separate = streams === "separate" && options.streams === "separate";
      const o = await runChild({
        file: "bash",
        args: ["-c", separate ? 'exec "$@"' : 'exec "$@" 2>&1', "host", ...argv],
        cwd,
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: cwd },
        stdout: { tail: options.maxOutputBytes ?? 1 << 20 },
        ...(separate ? { stderr: { tail: options.maxOutputBytes ?? 1 << 20 } } : {}),
        timeoutMs: options.timeoutMs,
        graceMs: 0,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return {
        output: o.stdout,
        ...(separate ? { stderr: o.stderr } : {}),
        exitCode: o.exitCode,
        timedOut: o.timedOut,
        durationMs: o.durationMs,
        ...(o.spawnError ? { infraError: o.spawnError } : {}),
      };
    },
  });
}

const never = new AbortController().signal;

describe.each(["interleaved", "separate"] as const)("shellEnvironment on a local bash, streams %s", (streams) => {
  const localHost = makeHost(streams);
  test("the host is asked for separate streams exactly when it keeps them apart", async () => {
    const seen: { timeoutMs: number; streams?: string }[] = [];
    await shellEnvironment(localHost(dir, seen)).run("true", 10, never);
    expect(seen[0]!.streams === "separate").toBe(streams === "separate");
  });

  test("separates stdout and stderr and keeps the exit code", async () => {
    const env = shellEnvironment(localHost(dir));
    const out = await env.run("echo out; echo err >&2; echo more; exit 3", 10, never);
    expect(out).toMatchObject({ stdout: "out\nmore\n", stderr: "err\n", exitCode: 3, timedOut: false });
  });

  test("output without a trailing newline stays exact", async () => {
    const out = await shellEnvironment(localHost(dir)).run("printf 'no newline'", 10, never);
    expect(out).toMatchObject({ stdout: "no newline", stderr: "", exitCode: 0 });
  });

  test("each command is a fresh shell in the workdir: cd does not persist, files do", async () => {
    const env = shellEnvironment(localHost(tmpdir()), { workdir: dir });
    await env.run("mkdir sub && cd sub && echo hi > f.txt", 10, never);
    const pwd = await env.run("pwd; cat sub/f.txt", 10, never);
    expect(pwd.stdout).toBe(`${dir}\nhi\n`);
    expect(await readFile(join(dir, "sub", "f.txt"), "utf8")).toBe("hi\n");
  });

  test("the command travels as an argument: quotes and $ reach bash unchanged", async () => {
    const command = `printf '%s|' "a b" '$HOME' "\\$2"; echo`;
    const out = await shellEnvironment(localHost(dir)).run(command, 10, never);
    expect(out.stdout).toBe("a b|$HOME|$2|\n");
  });

  test("a command over its timeout is stopped by `timeout` (124), its output so far kept", async () => {
    const seen: { timeoutMs: number }[] = [];
    const t0 = Date.now();
    const out = await shellEnvironment(localHost(dir, seen)).run("echo before; sleep 600", 1, never);
    expect(out).toMatchObject({ exitCode: 124, timedOut: true, stdout: "before\n" });
    // The command would sleep ten minutes: ending well inside that is `timeout`, however busy the machine.
    expect(Date.now() - t0).toBeLessThan(30_000);
    // The host's own limit is longer, so the environment outlives the command.
    expect(seen[0]!.timeoutMs).toBe((1 + 5 + 15) * 1000);
  });

  test("a timed-out command's whole process group is stopped, a child that ignored TERM too", async () => {
    const env = shellEnvironment(localHost(dir));
    // `timeout` TERMs the group once and leaves when the command's shell dies: this child would live on.
    const out = await env.run("(trap '' TERM; while :; do date +%s%N > beat; sleep 0.1; done) & sleep 30", 1, never);
    expect(out).toMatchObject({ exitCode: 124, timedOut: true });
    const first = await readFile(join(dir, "beat"), "utf8");
    await new Promise((r) => setTimeout(r, 600));
    expect(await readFile(join(dir, "beat"), "utf8")).toBe(first);
  });

  test("what a command leaves running when it ends by itself lives on (a server it started)", async () => {
    const env = shellEnvironment(localHost(dir));
    const out = await env.run("(sleep 0.5; echo late > later) >/dev/null 2>&1 & echo started", 10, never);
    expect(out).toMatchObject({ exitCode: 0, stdout: "started\n" });
    // Wait for the file it writes (a generous bound for a busy machine), not for a guessed 1.5 s.
    await expect.poll(() => readFile(join(dir, "later"), "utf8"), { timeout: 30_000 }).toBe("late\n");
  });

  test("a missing workdir is reported as exit 125 with the reason", async () => {
    const env = shellEnvironment(localHost(dir), { workdir: join(dir, "absent") });
    const out = await env.run("echo never", 10, never);
    expect(out.exitCode).toBe(125);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(/absent/);
  });

  test("the backend's failure passes through as infraError", async () => {
    const env = shellEnvironment({
      exec: async () => ({ output: "", exitCode: null, timedOut: false, durationMs: 1, infraError: "engine gone" }),
    });
    expect(await env.run("ls", 5, never)).toMatchObject({ infraError: "engine gone", exitCode: null });
  });

  test("output without the marker (the host stopped the wrapper) comes back as stdout, exit unknown", async () => {
    const env = shellEnvironment({
      exec: async () => ({ output: "partial", exitCode: null, timedOut: true, durationMs: 1 }),
    });
    expect(await env.run("ls", 5, never)).toEqual({
      exitCode: null,
      stdout: "partial",
      stderr: "",
      timedOut: true,
      durationMs: 1,
    });
  });

  test("an episode on a real shell: exec results, then mini-swe-agent's sentinel submits the diff", async () => {
    const participant = new ScriptedSender([
      jsonTask({ kind: "exec_request", command: "echo hello > a.txt; cat a.txt; ls missing" }),
      jsonTask({ kind: "exec_request", command: `echo ${SUBMIT_SENTINEL} && printf 'diff --git a/a.txt\\n'` }),
    ]);
    const record = await runEpisode({
      instruction: "x",
      participant,
      environment: shellEnvironment(localHost(tmpdir()), { workdir: dir }),
    });
    expect(record).toMatchObject({ exit_status: "final", final_output: "diff --git a/a.txt\n", commands: 2 });
    const result = participant.payloads()[1]!;
    expect(result).toMatchObject({ kind: "exec_result", stdout: "hello\n", exit_code: 2 });
    expect(result["stderr"]).toMatch(/missing/);
  });
});

describe("splitWrapped", () => {
  test("finds the marker and the code; no marker or a bad code is undefined", () => {
    expect(splitWrapped("out\n\nN 7\nerr", "N")).toEqual({ stdout: "out\n", stderr: "err", exitCode: 7 });
    expect(splitWrapped("out", "N")).toBeUndefined();
    expect(splitWrapped("\nN x\n", "N")).toBeUndefined();
  });
});

describe("shellEnvironment on a host keeping stderr apart", () => {
  test("the host's streams and exit code are the command's; a stop without an exit code stays unknown", async () => {
    const host = (r: { output: string; stderr?: string; exitCode: number | null; timedOut: boolean }): ArgvHost => ({
      separateStreams: true,
      exec: async () => ({ ...r, durationMs: 1 }),
    });
    expect(
      await shellEnvironment(host({ output: "o", stderr: "e", exitCode: 2, timedOut: false })).run("x", 5, never),
    ).toEqual({
      exitCode: 2,
      stdout: "o",
      stderr: "e",
      timedOut: false,
      durationMs: 1,
    });
    expect(
      await shellEnvironment(host({ output: "partial", exitCode: null, timedOut: true })).run("x", 5, never),
    ).toMatchObject({ exitCode: null, stdout: "partial", stderr: "", timedOut: true });
  });

  test("no marker reaches the output: a command printing a marker-like line keeps it as its own", async () => {
    const out = await shellEnvironment(makeHost("separate")(dir)).run(
      "printf '\\n@@a2a-bench-exit-0 0\\nrest'",
      10,
      never,
    );
    expect(out).toMatchObject({ exitCode: 0, stdout: "\n@@a2a-bench-exit-0 0\nrest", stderr: "" });
  });
});
