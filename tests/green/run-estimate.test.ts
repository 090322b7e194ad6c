/**
 * The default configs of our scenarios fit AgentBeats' 30-minute quick-submit window on a 2-core runner:
 * each has a time budget inside the window (with room for compose start-up), and its items at the
 * benchmark's measured pace (run-estimate.ts) fit that budget.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import JSON5 from "json5";
import { estimateRun, PRIOR_SECONDS_PER_ITEM } from "../../src/green/run-estimate.js";
import { getBenchmark, offeredInteractions } from "../../src/benchmarks/index.js";
import { resolveRunOptions } from "../../src/runner/options.js";
import { loadScenario } from "../../src/scenario/load.js";
import { packageRoot } from "../../src/util/package-root.js";
import { silentLogger } from "../../src/util/logger.js";

/** AgentBeats' quick-submit limit (QUICK_SUBMIT_TIMEOUT_MINUTES default), seconds. */
const WINDOW_S = 30 * 60;
/** Left of the window for pulling images, compose up and the agents' cards. */
const START_UP_S = 120;

type Obj = Record<string, unknown>;
const json5 = (path: string): Obj => JSON5.parse<Obj>(readFileSync(join(packageRoot, path), "utf8"));
const at = (o: unknown, ...keys: string[]): unknown => keys.reduce((v, k) => (v as Obj)[k], o);

const configs: Array<[string, Obj]> = [
  [
    "amber/amber-scenario.json5",
    at(json5("amber/amber-scenario.json5"), "components", "gateway", "config", "assessment_config") as Obj,
  ],
  [
    "amber/green/amber-manifest.json5",
    at(json5("amber/green/amber-manifest.json5"), "metadata", "assessment_config") as Obj,
  ],
  ["scenario_smi/", loadScenario(join(packageRoot, "scenario_smi")).config as unknown as Obj],
  [
    "leaderboard/scenario.toml",
    loadScenario(join(packageRoot, "leaderboard", "scenario.toml")).config as unknown as Obj,
  ],
];

describe("default scenario configs fit the 30-minute window", () => {
  it.each(configs)("%s", async (_name, config) => {
    const budget = config["time_budget_seconds"];
    expect(typeof budget).toBe("number");
    expect(budget as number).toBeLessThanOrEqual(WINDOW_S - START_UP_S);
    const options = resolveRunOptions(offeredInteractions, { ...config, sandbox: "local" }, { out: "/nonexistent" });
    const def = await getBenchmark(options.benchmark);
    const items = await def.loadItems(options, silentLogger());
    const n = Math.min(items.length, options.samples ?? items.length);
    expect(PRIOR_SECONDS_PER_ITEM[options.benchmark]).toBeDefined();
    const estimate = estimateRun({ benchmark: options.benchmark, itemsLeft: n, budgetSeconds: budget as number });
    expect(estimate.fits).toBe(true);
  });
});
