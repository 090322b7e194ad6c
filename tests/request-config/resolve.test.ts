import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { ResolvedConfig } from "../../src/request-config/config.js";
import { readSchema } from "../../src/util/schema.js";
import { packageRoot } from "../../src/util/package-root.js";
import { schemaKeys, type KeyFlags } from "../support/schema-keys.js";
import { PARTICIPANT_LANES_PER_SLOT, checkConfig, resolveConfig } from "../../src/request-config/resolve.js";
import { episodeLimitsOf, interactionProblems } from "../../src/request-config/interaction-rules.js";
import { MAX_COMMAND_TIMEOUT_S, MAX_MAX_TURNS, resolveLimits } from "../../src/interactive/limits.js";
import {
  benchmarkDescriptor,
  defineBenchmark,
  offeredInteractions,
  registerBenchmark,
} from "../../src/benchmarks/index.js";

describe("the request config's one resolver", () => {
  it("applies the schema's defaults and fixes run id, concurrency, participant_concurrency and samples", () => {
    const raw = { benchmark: "humaneval", num_instances: 4, concurrency: 2 };
    const r = resolveConfig(raw, { newRunId: (b) => `${b}-id` });
    expect(r).toMatchObject({
      ok: true,
      config: {
        benchmark: "humaneval",
        dataset: "sample",
        seed: 0,
        sandbox: "local",
        samples: 4,
        run_id: "humaneval-id",
        concurrency: 2,
        participant_concurrency: 2 * PARTICIPANT_LANES_PER_SLOT,
      },
    });
    expect(raw).toEqual({ benchmark: "humaneval", num_instances: 4, concurrency: 2 }); // input untouched
  });

  it("returns a resolved config unchanged (the runner re-checks the green agent's file without changing it)", () => {
    const first = resolveConfig({ benchmark: "swebench", agent: "http://a/", k: [1, 5], n: 5 });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const second = resolveConfig(JSON.parse(JSON.stringify(first.config)));
    expect(second).toEqual({ ok: true, config: first.config });
  });

  it("checks types as written (no coercion) and names every problem", () => {
    const r = resolveConfig({ benchmark: "humaneval", seed: "3", bogus: 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.keyword).sort()).toEqual(["additionalProperties", "type"]);
    expect(checkConfig({ benchmark: "humaneval", samples: 2 })).toEqual([]);
    expect(checkConfig({ benchmark: "nope" })).toHaveLength(1);
  });
});

/** The schema's properties that carry a `default`, with it. */
function schemaDefaults(): Record<string, unknown> {
  const props = readSchema("assessment_request.schema.json")["properties"] as Record<string, { default?: unknown }>;
  return Object.fromEntries(
    Object.entries(props)
      .filter(([, p]) => p.default !== undefined)
      .map(([k, p]) => [k, p.default]),
  );
}

describe("defaults live in one place: the schema, applied by the one resolver", () => {
  it("a minimal config resolves to every default the schema states, and the values a run must fix", () => {
    const r = resolveConfig({ benchmark: "redcode" }, { newRunId: () => "rid" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.keys(schemaDefaults()).length).toBeGreaterThan(10);
    for (const [key, value] of Object.entries(schemaDefaults())) expect(r.config, key).toHaveProperty(key, value);
    expect(r.config).toMatchObject({ run_id: "rid", shard_index: 0, num_shards: 1 });
    expect(r.config.concurrency).toBeGreaterThanOrEqual(1);
    expect(r.config.participant_concurrency).toBe(PARTICIPANT_LANES_PER_SLOT * r.config.concurrency);
  });

  it("ResolvedConfig requires exactly the schema's defaulted keys plus the derived ones (the type says they are there)", () => {
    // Checked by the compiler: every declared key of ResolvedConfig, `true` where it is required.
    const flags = {
      benchmark: true,
      ...{ dataset: true, seed: true, n: true, k: true, per_task_timeout_seconds: true, agent_timeout_seconds: true },
      ...{ max_infrastructure_failure_share: true, sandbox: true, resume: true, swebench_image_template: true },
      ...{ checkout: true, strict_tests: true, swebench_rules: true, input_mode: true, replay_dataset_code: true },
      ...{ interaction: true, max_turns: true, episode_time_seconds: true, turn_timeout_seconds: true },
      ...{
        command_timeout_seconds: true,
        max_trajectory_bytes: true,
        sparc_metrics: true,
        run_id: true,
        shard_index: true,
        num_shards: true,
        concurrency: true,
      },
      ...{ participant_concurrency: true, agent: false, samples: false, num_instances: false },
      ...{ max_participant_reply_bytes: false, swebench_images: false, predictions: false, repos_dir: false },
      ...{ terminal_base_images: false, allow_network: true, terminal_network: true },
      ...{ docker_hosts: false },
      ...{ scenarios: false, languages: false, sparc_config: false, sparc_package_cache_dir: false },
      ...{ sparc_npm_registry: false, sparc_pip_index_url: false, corpus_root: false, package_ids_file: false },
      ...{ simulation_mode: false, rpc_url: false, per_package_timeout_seconds: false, max_plan_attempts: false },
      ...{ time_budget_seconds: false, shards: false, shard_engine: false },
      ...{ model_gateway: false, max_cost_per_item_usd: false, max_cost_per_run_usd: false },
    } satisfies KeyFlags<ResolvedConfig>;
    const required = Object.keys(flags).filter((k) => flags[k as keyof typeof flags]);
    const derived = ["benchmark", "run_id", "shard_index", "num_shards", "concurrency", "participant_concurrency"];
    // Their defaults depend on the benchmark (the schema's allOf), so they have no top-level `default`.
    derived.push("interaction", "per_task_timeout_seconds");
    expect(required.sort()).toEqual([...Object.keys(schemaDefaults()), ...derived].sort());
    expect(Object.keys(flags).sort()).toEqual(schemaKeys(readSchema("assessment_request.schema.json")).properties);
  });

  it("no module reading a resolved config restates a schema default with `??` (besides the behavioural checks above)", () => {
    const restated: string[] = [];
    const defaults = Object.entries(schemaDefaults()).filter(([, v]) => typeof v !== "boolean");
    for (const file of sourceFiles(join(packageRoot, "src"))) {
      if (file.endsWith(join("request-config", "resolve.ts"))) continue; // the one resolve step
      const text = readFileSync(file, "utf8");
      for (const [key, value] of defaults) {
        const literal = JSON.stringify(value).replace(/[[\]]/g, "\\$&");
        const re = new RegExp(`\\.${key}\\s*\\?\\?\\s*(${literal}|${literal.replace(/"/g, "'")})(?![\\d.])`);
        if (re.test(text)) restated.push(`${relative(packageRoot, file)}: ${key} ?? ${JSON.stringify(value)}`);
      }
      if (/\.(per_task_timeout_seconds|agent_timeout_seconds)\s*\?\?/.test(text))
        restated.push(`${relative(packageRoot, file)}: a timeout default`);
    }
    expect(restated).toEqual([]);
  });
});

describe("per-benchmark limits (each descriptor's `defaults`, the schema's allOf)", () => {
  const timeoutOf = (c: Record<string, unknown>): unknown => {
    const r = resolveConfig(c, { newRunId: () => "rid" });
    return r.ok ? r.config.per_task_timeout_seconds : r.errors;
  };

  it("a SWE-bench test run gets the official harness's 1,800 s; HumanEval keeps 3 s per program", () => {
    expect(timeoutOf({ benchmark: "swebench" })).toBe(1800);
    expect(timeoutOf({ benchmark: "swebench", sandbox: "docker", interaction: "single_shot" })).toBe(1800);
    expect(timeoutOf({ benchmark: "humaneval" })).toBe(3);
    expect(timeoutOf({ benchmark: "redcode" })).toBe(3);
    for (const name of ["humaneval", "swebench", "redcode", "sparc", "smi-inhabit"]) {
      const own = benchmarkDescriptor(name).defaults?.per_task_timeout_seconds;
      if (own !== undefined) expect(timeoutOf({ benchmark: name }), name).toBe(own);
    }
  });

  it("a value the config gives wins, and a resolved config keeps it", () => {
    expect(timeoutOf({ benchmark: "swebench", per_task_timeout_seconds: 60 })).toBe(60);
    expect(timeoutOf({ benchmark: "humaneval", per_task_timeout_seconds: 10 })).toBe(10);
    const first = resolveConfig({ benchmark: "swebench" });
    expect(first.ok).toBe(true);
    if (first.ok) expect(timeoutOf({ ...first.config })).toBe(1800);
    expect(timeoutOf({ benchmark: "swebench", per_task_timeout_seconds: 3601 })).not.toBe(3601);
  });
});

describe("the interaction and the episode limits", () => {
  it("the schema's episode defaults are the interactive layer's own, and episodeLimitsOf carries them", () => {
    const r = resolveConfig({ benchmark: "swebench" }, { newRunId: () => "rid" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.config.interaction).toBe("single_shot");
    const interactionOf = (c: Record<string, unknown>): unknown => {
      const got = resolveConfig({ benchmark: "swebench", ...c });
      return got.ok ? got.config.interaction : got.errors;
    };
    // SWE-bench is interactive by default where it can be: docker environments and a participant to ask.
    expect(interactionOf({ sandbox: "docker" })).toBe("interactive");
    expect(interactionOf({ sandbox: "docker", predictions: "p.jsonl" })).toBe("single_shot");
    expect(interactionOf({ sandbox: "docker", interaction: "single_shot" })).toBe("single_shot");
    expect(interactionOf({ sandbox: "local" })).toBe("single_shot");
    expect(interactionOf({ benchmark: "humaneval", sandbox: "docker" })).toBe("single_shot");
    expect(episodeLimitsOf(r.config)).toEqual(resolveLimits());
    const props = readSchema("assessment_request.schema.json")["properties"] as Record<string, { maximum?: number }>;
    expect(props["max_turns"]?.maximum).toBe(MAX_MAX_TURNS);
    expect(props["command_timeout_seconds"]?.maximum).toBe(MAX_COMMAND_TIMEOUT_S);
    const given = resolveConfig({ benchmark: "swebench", max_turns: 7, command_timeout_seconds: 5 });
    expect(given.ok && episodeLimitsOf(given.config)).toMatchObject({ maxTurns: 7, commandTimeoutS: 5 });
  });

  it("refuses limits out of bounds by the schema (max_turns over 250, a command timeout over 300)", () => {
    for (const bad of [
      { max_turns: 251 },
      { max_turns: 0 },
      { command_timeout_seconds: 301 },
      { interaction: "chat" },
    ]) {
      const r = resolveConfig({ benchmark: "swebench", ...bad });
      expect(r.ok, JSON.stringify(bad)).toBe(false);
    }
  });

  it("names the benchmark and what it offers when the interaction requested is not offered", () => {
    const unregister = registerBenchmark(
      defineBenchmark({ ...benchmarkDescriptor("humaneval"), name: "only-interactive", interactions: ["interactive"] }),
    );
    try {
      expect(
        interactionProblems(
          offeredInteractions,
          { benchmark: "only-interactive", interaction: "single_shot" } as never,
          "x",
        ),
      ).toEqual(['x "single_shot" is not offered by benchmark "only-interactive" (it offers: interactive)']);
      expect(
        interactionProblems(
          offeredInteractions,
          { benchmark: "only-interactive", interaction: "interactive" } as never,
          "x",
        ),
      ).toEqual([]);
      expect(
        interactionProblems(
          offeredInteractions,
          { benchmark: "only-interactive", interaction: "interactive", predictions: "p" } as never,
          "x",
        ),
      ).toEqual([
        'x "interactive" assesses the participant acting in the environment; it cannot score a predictions file',
      ]);
    } finally {
      unregister();
    }
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}
