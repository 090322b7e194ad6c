import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CONFIG_KEYS,
  optionTable,
  parseRunArgs,
  readConfigFile,
  resolveRunArgs,
  usageText,
} from "../../src/runner/run-args.js";
import { getValidator, readSchema, schemaProblems } from "../../src/util/schema.js";
import { UsageError } from "../../src/util/errors.js";
import { PARTICIPANT_LANES_PER_SLOT } from "../../src/request-config/resolve.js";
import { resolveRunOptions } from "../../src/runner/options.js";
import { offeredInteractions } from "../../src/benchmarks/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cfg-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("run options from the schema", () => {
  it("has one flag per schema key (kebab-case) plus --config-file and --out", () => {
    const keys = Object.keys(readSchema("assessment_request.schema.json")["properties"] as object).filter(
      (k) => k !== "benchmark",
    );
    expect([...CONFIG_KEYS].sort()).toEqual(keys.sort());
    const flags = Object.keys(optionTable());
    for (const k of keys) expect(flags).toContain(k.replace(/_/g, "-"));
    expect(flags).toContain("config-file");
    expect(flags).toContain("out");
    expect(usageText()).toContain("--per-task-timeout-seconds");
  });

  it("parses flags, comma lists and coerces types with defaults applied", () => {
    const args = parseRunArgs([
      "humaneval",
      "--k",
      "1,10",
      "--n",
      "20",
      "--per-task-timeout-seconds",
      "2.5",
      "--resume",
      "--run-id",
      "r1",
    ]);
    const o = resolveRunArgs(offeredInteractions, args, {}, dir);
    expect(o).toMatchObject({
      benchmark: "humaneval",
      k: [1, 10],
      n: 20,
      per_task_timeout_seconds: 2.5,
      resume: true,
      run_id: "r1",
      dataset: "sample",
      seed: 0,
      sandbox: "local",
    });
    expect(o.out).toBe(join(dir, "results", "humaneval", "r1"));
    expect(o.concurrency).toBeGreaterThanOrEqual(1);
  });

  it("lets flags override the config file and maps num_instances to samples", async () => {
    const file = join(dir, "config.json");
    await writeFile(file, JSON.stringify({ benchmark: "humaneval", seed: 3, num_instances: 4, n: 2 }));
    const fileConfig = await readConfigFile(file);
    const o = resolveRunArgs(
      offeredInteractions,
      parseRunArgs(["humaneval", "--config-file", file, "--seed", "9", "--out", dir]),
      fileConfig,
    );
    expect(o).toMatchObject({ seed: 9, samples: 4, n: 2, out: dir });
    expect(o.run_id).toMatch(/^humaneval-\d{8}T\d{6}-[0-9a-f]{4}$/);
  });

  it("reads a negative number as the option's value and rejects it naming the option and the bound", () => {
    const args = parseRunArgs([
      "humaneval",
      "--per-task-timeout-seconds",
      "-1",
      "--seed",
      "-2",
      "--agent-timeout-seconds",
      "5000",
    ]);
    expect(args.flags["per_task_timeout_seconds"]).toBe("-1");
    expect(() => resolveRunArgs(offeredInteractions, args, {}, dir)).toThrow(UsageError);
    const msg = ((): string => {
      try {
        resolveRunArgs(offeredInteractions, args, {}, dir);
        return "";
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(msg).toContain("--per-task-timeout-seconds must be a positive number, got -1");
    expect(msg).toContain("--seed must be a non-negative integer, got -2");
    expect(msg).toContain("--agent-timeout-seconds must be at most 3600, got 5000");
    expect(msg).not.toContain("ambiguous");
  });

  it("lists every problem in one usage error", () => {
    const args = parseRunArgs(["humaneval", "--n", "0", "--sandbox", "vm", "--seed", "x"]);
    try {
      resolveRunArgs(offeredInteractions, args, {}, dir);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      const msg = (err as Error).message;
      expect(msg).toMatch(/--n must be a positive integer, got 0/);
      expect(msg).toMatch(/--sandbox: must be one of \["local",.*"docker".*\]/);
      expect(msg).toMatch(/--seed: must be integer/);
    }
  });

  it("rejects unknown flags, a missing benchmark and a config file of the wrong shape", async () => {
    expect(() => parseRunArgs(["humaneval", "--bogus", "1"])).toThrow(UsageError);
    expect(() => parseRunArgs([])).toThrow(/missing <benchmark>/);
    const file = join(dir, "bad.json");
    await writeFile(file, JSON.stringify({ benchmark: "humaneval", seed: "3", extra: 1 }));
    const args = parseRunArgs(["humaneval", "--config-file", file]);
    const fileConfig = await readConfigFile(file);
    expect(() => resolveRunArgs(offeredInteractions, args, fileConfig, dir)).toThrow(
      /--config-file .*bad\.json: .*(seed: must be integer.*unknown key "extra"|unknown key "extra".*seed)/,
    );
    await writeFile(file, JSON.stringify({ benchmark: "humaneval", per_task_timout_seconds: 5 }));
    expect(() =>
      resolveRunArgs(offeredInteractions, args, { benchmark: "humaneval", per_task_timout_seconds: 5 }, dir),
    ).toThrow('unknown key "per_task_timout_seconds" (did you mean "per_task_timeout_seconds"?)');
    await writeFile(file, "[1]");
    await expect(readConfigFile(file)).rejects.toThrow(/must be a JSON object/);
  });

  it("refuses a config file naming another benchmark", () => {
    expect(() =>
      resolveRunArgs(offeredInteractions, parseRunArgs(["humaneval"]), { benchmark: "swebench" }, dir),
    ).toThrow(/config file says benchmark "swebench"/);
  });

  it("defaults participant_concurrency to PARTICIPANT_LANES_PER_SLOT × concurrency; a flag or the file sets it", () => {
    const o = resolveRunArgs(offeredInteractions, parseRunArgs(["humaneval", "--concurrency", "3"]), {}, dir);
    expect(o).toMatchObject({ concurrency: 3, participant_concurrency: 3 * PARTICIPANT_LANES_PER_SLOT });
    expect(
      resolveRunArgs(offeredInteractions, parseRunArgs(["humaneval", "--participant-concurrency", "16"]), {}, dir)
        .participant_concurrency,
    ).toBe(16);
    expect(
      resolveRunArgs(offeredInteractions, parseRunArgs(["humaneval"]), { participant_concurrency: 5 }, dir)
        .participant_concurrency,
    ).toBe(5);
    expect(() =>
      resolveRunArgs(offeredInteractions, parseRunArgs(["humaneval", "--participant-concurrency", "0"]), {}, dir),
    ).toThrow("--participant-concurrency must be a positive integer, got 0");
  });

  it("the schema itself is valid JSON Schema 2020-12 (the runner's own validators skip that check at start-up)", () => {
    expect(schemaProblems("assessment_request.schema.json")).toEqual([]);
    expect(() => getValidator("assessment_request.schema.json")).not.toThrow();
  });
});

describe("the interaction must be one the benchmark offers", () => {
  it("--interaction interactive for a single-shot benchmark is a usage error naming the flag and the benchmark", () => {
    const args = parseRunArgs(["redcode", "--agent", "http://127.0.0.1:9/", "--interaction", "interactive"]);
    expect(() => resolveRunArgs(offeredInteractions, args)).toThrow(
      '--interaction "interactive" is not offered by benchmark "redcode" (it offers: single_shot)',
    );
    expect(() => resolveRunOptions(offeredInteractions, { benchmark: "redcode", interaction: "interactive" })).toThrow(
      /interaction "interactive" is not offered by benchmark "redcode"/,
    );
    const limits = resolveRunArgs(
      offeredInteractions,
      parseRunArgs(["redcode", "--max-turns", "9", "--command-timeout-seconds", "4"]),
    );
    expect(limits).toMatchObject({ interaction: "single_shot", max_turns: 9, command_timeout_seconds: 4 });
    expect(() => resolveRunArgs(offeredInteractions, parseRunArgs(["redcode", "--max-turns", "251"]))).toThrow(
      /--max-turns/,
    );
  });

  it("humaneval offers interactive on request (single-shot by default) and refuses it beside a predictions file", () => {
    const agent = ["--agent", "http://127.0.0.1:9/"];
    expect(
      resolveRunArgs(offeredInteractions, parseRunArgs(["humaneval", ...agent, "--sandbox", "docker"])),
    ).toMatchObject({
      interaction: "single_shot",
    });
    const on = resolveRunArgs(
      offeredInteractions,
      parseRunArgs(["humaneval", ...agent, "--interaction", "interactive", "--max-turns", "5"]),
    );
    expect(on).toMatchObject({ interaction: "interactive", max_turns: 5 });
    expect(() =>
      resolveRunArgs(
        offeredInteractions,
        parseRunArgs(["humaneval", "--predictions", "s.jsonl", "--interaction", "interactive"]),
      ),
    ).toThrow(/--interaction "interactive" assesses the participant acting in the environment/);
  });
});

describe("a run that names a participant must ask it", () => {
  it("--agent with --predictions (or --replay-dataset-code) is a usage error naming both flags", () => {
    const args = parseRunArgs(["humaneval", "--agent", "http://127.0.0.1:9/", "--predictions", "gold.jsonl"]);
    expect(() => resolveRunArgs(offeredInteractions, args)).toThrow(UsageError);
    expect(() => resolveRunArgs(offeredInteractions, args)).toThrow(
      /^--agent and --predictions cannot be given together/,
    );
    const replay = parseRunArgs(["redcode", "--agent", "http://127.0.0.1:9/", "--replay-dataset-code"]);
    expect(() => resolveRunArgs(offeredInteractions, replay)).toThrow(
      /--agent and --replay-dataset-code cannot be given together/,
    );
  });

  it("the same pair from a config file is refused too; either one alone is fine", () => {
    const args = parseRunArgs(["humaneval", "--predictions", "gold.jsonl"]);
    expect(() => resolveRunArgs(offeredInteractions, args, { agent: "http://127.0.0.1:9/" })).toThrow(
      /cannot be given together/,
    );
    expect(resolveRunArgs(offeredInteractions, args).predictions).toBe("gold.jsonl");
    expect(
      resolveRunArgs(offeredInteractions, parseRunArgs(["humaneval", "--agent", "http://127.0.0.1:9/"])).agent,
    ).toBe("http://127.0.0.1:9/");
  });

  it("--max-participant-reply-bytes is a bounded integer flag", () => {
    expect(
      resolveRunArgs(
        offeredInteractions,
        parseRunArgs(["humaneval", "--agent", "http://a/", "--max-participant-reply-bytes", "65536"]),
      ).max_participant_reply_bytes,
    ).toBe(65536);
    expect(() =>
      resolveRunArgs(
        offeredInteractions,
        parseRunArgs(["humaneval", "--agent", "http://a/", "--max-participant-reply-bytes", "10"]),
      ),
    ).toThrow(/--max-participant-reply-bytes must be an? integer of at least 1024, got 10/);
  });
});
