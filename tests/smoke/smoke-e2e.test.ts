/**
 * End to end against the real green and purple agents: `smoke --start`
 * (what `npm start` runs) on a scenario with free ports, and `smoke` against
 * a scenario started by `a2a-bench scenario`. No process may survive.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultScenarioDir } from "../../src/util/package-root.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { freePort, runCli, startCli, until, type CliChild } from "../scenario/helpers.js";
import { isPortFree } from "../../src/scenario/port-check.js";

let dir: string;
let managers: CliChild[] = [];

async function writeScenario(): Promise<[number, number]> {
  const ports: [number, number] = [await freePort(), await freePort()];
  writeFileSync(
    join(dir, "scenario.toml"),
    `[scenario]
name = "e2e"

[[agents]]
card = "${join(defaultScenarioDir, "green_agent_card.toml")}"
is_green = true
agent_host = "127.0.0.1"
agent_port = ${ports[0]}

[[agents]]
card = "${join(defaultScenarioDir, "purple_agent_card.toml")}"
is_green = false
mode = "gold"
agent_host = "127.0.0.1"
agent_port = ${ports[1]}

[config]
benchmark = "humaneval"
dataset = "sample"
`,
  );
  return ports;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-smoke-"));
  managers = [];
});

afterEach(async () => {
  for (const m of managers) if (m.child.exitCode === null) m.child.kill("SIGTERM");
  for (const m of managers) await m.exited;
  rmSync(dir, { recursive: true, force: true });
});

function readResponse(path: string): { methods: string[]; final_state: string; events: unknown[] } {
  return JSON.parse(readFileSync(path, "utf8")) as { methods: string[]; final_state: string; events: unknown[] };
}

describe("smoke against the real agents", () => {
  it("--start launches the scenario, gets a valid bundle over message/stream, and stops every agent", async () => {
    const ports = await writeScenario();
    const out = join(dir, "out", "run-response.json");
    const r = await runCli(
      [
        "smoke",
        "--start",
        "--scenario",
        dir,
        "--samples",
        "3",
        "--out",
        out,
        "--timeout",
        "120",
        "--log-level",
        "debug",
      ],
      {
        cwd: dir,
        timeoutMs: 150_000,
      },
    );
    expect(r.output).toContain("smoke_ok=true");
    // --log-level reached the agents it started: their log holds debug records.
    expect(readFileSync(join(dir, "out", "run-agents.log"), "utf8")).toMatch(/^\[green\] \{"level":20,/m);
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/\[smoke\] +[\d.]+s working/); // live progress lines
    expect(r.output).toMatch(/^run_id=\S+$/m);
    expect(r.output).toMatch(/^exit_code=0$/m);
    expect(r.output).toMatch(/^errors=0$/m);
    expect(r.output).toMatch(/^artifacts\.results_path=/m);

    const response = readResponse(out);
    expect(response.methods[0]).toBe("message/stream");
    expect(response.final_state).toBe("completed");
    expect(response.events.length).toBeGreaterThan(2);
    const bundle = JSON.parse(readFileSync(join(dir, "out", "run-evaluation_bundle.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(validateBundle(bundle)).toEqual([]);
    expect((bundle["config"] as Record<string, unknown>)["benchmark"]).toBe("humaneval");
    // validate-bundle reads the saved response itself (its stream events) and finds the same bundle.
    const check = await runCli(["validate-bundle", out], { cwd: dir, timeoutMs: 30_000 });
    expect(check.code).toBe(0);
    expect(check.output).toContain(`valid: humaneval run ${String(bundle["run_id"])}`);
    expect(check.output).toContain("saved stream");
    // Per-item bookkeeping is not shown line by line; no line repeats the one before.
    expect(r.output).not.toContain("Checkpoint written");
    const progressLines = r.output
      .split("\n")
      .filter((l) => /^\[smoke\] +[\d.]+s /.test(l))
      .map((l) => l.replace(/^\[smoke\] +[\d.]+s /, ""));
    expect(progressLines.every((l, i) => i === 0 || l !== progressLines[i - 1])).toBe(true);

    // Nothing left: pid file gone, both ports free again.
    expect(existsSync(join(dir, ".scenario_pids.json"))).toBe(false);
    expect(await isPortFree("127.0.0.1", ports[0])).toBe(true);
    expect(await isPortFree("127.0.0.1", ports[1])).toBe(true);
  });

  it("runs against agents started by `a2a-bench scenario`", async () => {
    const ports = await writeScenario();
    const manager = startCli(["scenario", dir], { cwd: dir });
    managers.push(manager);
    await until(
      () => manager.output().includes("running; pid file") || manager.child.exitCode !== null,
      30_000,
      "scenario ready",
    );
    expect(manager.output()).toContain("running; pid file");

    const out = join(dir, "against-running-response.json");
    const r = await runCli(
      ["smoke", "--scenario", dir, "--green", `http://127.0.0.1:${ports[0]}/`, "--samples", "2", "--out", out],
      {
        cwd: dir,
        timeoutMs: 150_000,
      },
    );
    expect(r.output).toContain("smoke_ok=true");
    expect(r.code).toBe(0);
    expect(readResponse(out).methods[0]).toBe("message/stream");
    // The agents are not smoke's to stop: still running until the manager is told.
    expect(manager.child.exitCode).toBeNull();
    const kill = await runCli(["scenario", dir, "--kill"]);
    expect(kill.code).toBe(0);
    expect((await manager.exited).code).toBe(0);
  });

  it("exits non-zero, with the reason, when the green agent is not there, after --card-timeout", async () => {
    const ports = await writeScenario();
    const started = Date.now();
    const r = await runCli(
      ["smoke", "--scenario", dir, "--green", `http://127.0.0.1:${ports[0]}/`, "--card-timeout", "1"],
      { cwd: dir, timeoutMs: 60_000 },
    );
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/no agent card after 1 s/);
    // The 30 s default card wait is not waited out: the bound given is the bound kept (the message says 1 s;
    // the wall-clock bound leaves a busy machine all the room below the default).
    expect(Date.now() - started).toBeLessThan(29_000);
  }, 90_000);
});
