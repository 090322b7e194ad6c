/**
 * Real processes end to end: `a2a-bench scenario` launches two stand-in
 * agents (tests/fixtures/scenario/fake-agent.mjs) from a tutorial-layout
 * scenario, then --status, a refused second launch, --kill, stale pid files,
 * a reused pid, the SIGKILL path and an agent that dies at start.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { alive, freePort, runCli, startCli, until, type CliChild } from "./helpers.js";
import { procInfo } from "../../src/process/proc-scan.js";
import type { PidFile } from "../../src/scenario/pid-file.js";

const FAKE = resolve(import.meta.dirname, "../fixtures/scenario/fake-agent.mjs");
const SECRET = "s3cr3t-token-value-XYZ";

let dir: string;
let managers: CliChild[] = [];
let extraPids: number[] = [];

function writeScenario(ports: [number, number], extra: { green?: string; purple?: string } = {}): void {
  const node = JSON.stringify(process.execPath).slice(1, -1);
  writeFileSync(
    join(dir, "scenario.toml"),
    `[green_agent]
endpoint = "http://127.0.0.1:${ports[0]}"
cmd = "'${node}' '${FAKE}' --port ${ports[0]} --name green --report-env SECRET_TOKEN ${extra.green ?? ""}"

[[participants]]
role = "agent"
endpoint = "http://127.0.0.1:${ports[1]}"
cmd = "'${node}' '${FAKE}' --port ${ports[1]} --name purple ${extra.purple ?? ""}"
`,
  );
  writeFileSync(join(dir, ".env"), `SECRET_TOKEN=${SECRET}\n`);
}

function pidFile(): PidFile {
  return JSON.parse(readFileSync(join(dir, ".scenario_pids.json"), "utf8")) as PidFile;
}

async function launch(): Promise<CliChild> {
  const m = startCli(["scenario", dir, "--env-file", join(dir, ".env")]);
  managers.push(m);
  await until(() => m.output().includes("running; pid file") || m.child.exitCode !== null, 30_000, "scenario ready");
  expect(m.output()).toContain("running; pid file");
  return m;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-scenario-"));
  managers = [];
  extraPids = [];
});

afterEach(async () => {
  // Never leave a process behind, whatever failed above.
  for (const m of managers) if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill("SIGKILL");
  if (existsSync(join(dir, ".scenario_pids.json"))) {
    for (const a of pidFile().agents) {
      const info = procInfo(a.pid);
      if (info && info.startTime === a.startTime) process.kill(-a.pgid, "SIGKILL");
    }
  }
  for (const pid of extraPids) if (alive(pid)) process.kill(-pid, "SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("a2a-bench scenario (real processes)", () => {
  it("launches, reports status, refuses a second launch, and --kill stops everything", async () => {
    const ports: [number, number] = [await freePort(), await freePort()];
    writeScenario(ports);
    const manager = await launch();

    // Logs are prefixed per agent; the secret reached the agent but not the logs.
    expect(manager.output()).toMatch(/\[green\] green listening on \d+/);
    expect(manager.output()).toContain(`[green] env SECRET_TOKEN set len=${SECRET.length}`);
    expect(manager.output()).not.toContain(SECRET);

    const pf = pidFile();
    expect(pf.owner.pid).toBe(manager.child.pid);
    expect(pf.env_keys).toEqual(["SECRET_TOKEN"]);
    expect(JSON.stringify(pf)).not.toContain(SECRET);
    expect(pf.agents.map((a) => [a.name, a.port])).toEqual([
      ["green", ports[0]],
      ["agent", ports[1]],
    ]);
    for (const a of pf.agents) {
      expect(a.pgid).toBe(a.pid); // own process group
      expect(procInfo(a.pid)?.startTime).toBe(a.startTime);
      expect(a.cmdline).toContain(FAKE); // sh -c "exec ..." has exec'd into the agent
    }

    const status = await runCli(["scenario", dir, "--status", "--env-file", join(dir, ".env")]);
    expect(status.code).toBe(0);
    expect(status.output).toMatch(
      new RegExp(
        `green +port=${ports[0]} listening=yes pid=${pf.agents[0]!.pid} card=http://127.0.0.1:${ports[0]}/.well-known/agent-card.json`,
      ),
    );
    expect(status.output).toMatch(new RegExp(`agent +port=${ports[1]} listening=yes pid=${pf.agents[1]!.pid}`));
    expect(status.output).toContain("stale=no");
    expect(status.output).toContain("env SECRET_TOKEN=s3****");
    expect(status.output).not.toContain(SECRET);

    const second = await runCli(["scenario", dir]);
    expect(second.code).toBe(1);
    expect(second.output).toContain("already running");
    expect(pidFile().owner.pid).toBe(manager.child.pid); // the second launch did not touch it

    const kill = await runCli(["scenario", dir, "--kill"]);
    expect(kill.code).toBe(0);
    expect(kill.output).toMatch(/green pid=\d+ stopped/);
    expect(kill.output).toMatch(/agent pid=\d+ stopped/);
    for (const a of pf.agents) expect(alive(a.pid)).toBe(false);
    expect(existsSync(join(dir, ".scenario_pids.json"))).toBe(false);
    const end = await manager.exited;
    expect(end.code).toBe(0); // the manager was told (SIGTERM) and stopped cleanly

    const after = await runCli(["scenario", dir, "--status"]);
    expect(after.code).toBe(1);
    expect(after.output).toContain("listening=no pid=-");
  });

  it("SIGINT stops both agents, with SIGKILL for one that ignores SIGTERM, and removes the pid file", async () => {
    const ports: [number, number] = [await freePort(), await freePort()];
    writeScenario(ports, { purple: "--ignore-term" });
    const manager = await launch();
    const pids = pidFile().agents.map((a) => a.pid);
    manager.child.kill("SIGINT");
    const end = await manager.exited;
    expect(end.code).toBe(0);
    expect(manager.output()).toContain("received SIGINT");
    expect(manager.output()).toContain("(1 needed SIGKILL)");
    for (const pid of pids) expect(alive(pid)).toBe(false);
    expect(existsSync(join(dir, ".scenario_pids.json"))).toBe(false);
  });

  it("fails when an agent exits before serving its card, leaving no process behind", async () => {
    const ports: [number, number] = [await freePort(), await freePort()];
    writeScenario(ports, { purple: "--exit-early" });
    const r = await runCli(["scenario", dir]);
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/agent exited \(code 3/);
    expect(existsSync(join(dir, ".scenario_pids.json"))).toBe(false);
    // The green agent that did start was stopped: its port is free again.
    const probe = await fetch(`http://127.0.0.1:${ports[0]}/.well-known/agent-card.json`).then(
      () => "answered",
      () => "refused",
    );
    expect(probe).toBe("refused");
  });

  it("reports a stale pid file and launches over it", async () => {
    const ports: [number, number] = [await freePort(), await freePort()];
    writeScenario(ports);
    // A pid file left by a launch whose processes are all gone.
    const gone = spawn("true");
    await new Promise((r) => gone.once("exit", r));
    const stale: PidFile = {
      schema_version: 1,
      scenario_manager_pid: gone.pid!,
      owner: { kind: "scenario-manager", pid: gone.pid!, startTime: 1, cmdline: ["x"] },
      scenario_file: join(dir, "scenario.toml"),
      started_at: new Date().toISOString(),
      env_keys: [],
      agents: [
        {
          name: "green",
          is_green: true,
          pid: gone.pid!,
          pgid: gone.pid!,
          startTime: 1,
          cmdline: ["x"],
          host: "127.0.0.1",
          port: ports[0],
          endpoint: "",
          card_url: `http://127.0.0.1:${ports[0]}/.well-known/agent-card.json`,
        },
      ],
    };
    writeFileSync(join(dir, ".scenario_pids.json"), JSON.stringify(stale));
    const status = await runCli(["scenario", dir, "--status"]);
    expect(status.code).toBe(1);
    expect(status.output).toContain("stale=yes");
    expect(status.output).toContain("listening=no");

    const manager = await launch();
    expect(manager.output()).toContain("removing stale pid file");
    expect(pidFile().owner.pid).toBe(manager.child.pid);
    manager.child.kill("SIGTERM");
    expect((await manager.exited).code).toBe(0);
  });

  it("--kill refuses a pid that is no longer ours and leaves that process alone", async () => {
    // A live process that merely has the recorded pid: its start time differs from the recorded one.
    const stranger = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
    extraPids.push(stranger.pid!);
    const info = procInfo(stranger.pid!);
    expect(info).toBeDefined();
    const forged: PidFile = {
      schema_version: 1,
      scenario_manager_pid: 999999,
      owner: { kind: "scenario-manager", pid: 999999, startTime: 1, cmdline: [] },
      scenario_file: join(dir, "scenario.toml"),
      started_at: new Date().toISOString(),
      env_keys: [],
      agents: [
        {
          name: "green",
          is_green: true,
          pid: stranger.pid!,
          pgid: stranger.pid!,
          startTime: info!.startTime - 1,
          cmdline: info!.cmdline,
          host: "127.0.0.1",
          port: 1,
          endpoint: "",
          card_url: "http://127.0.0.1:1/.well-known/agent-card.json",
        },
        {
          name: "agent",
          is_green: false,
          pid: stranger.pid!,
          pgid: stranger.pid!,
          startTime: info!.startTime,
          cmdline: ["node", "not-sleep"],
          host: "127.0.0.1",
          port: 2,
          endpoint: "",
          card_url: "http://127.0.0.1:2/.well-known/agent-card.json",
        },
      ],
    };
    writeScenario([1, 2]);
    writeFileSync(join(dir, ".scenario_pids.json"), JSON.stringify(forged));
    const r = await runCli(["scenario", dir, "--kill"]);
    expect(r.code).toBe(1);
    expect(r.output).toMatch(
      new RegExp(`green pid=${stranger.pid} REFUSED: no longer ours \\(pid ${stranger.pid} started at tick`),
    );
    expect(r.output).toMatch(new RegExp(`agent pid=${stranger.pid} REFUSED: no longer ours .*not ours`));
    expect(alive(stranger.pid!)).toBe(true);
    expect(existsSync(join(dir, ".scenario_pids.json"))).toBe(false);
  });

  it("rejects bad usage with exit 2", async () => {
    const r = await runCli(["scenario", dir, "--status", "--kill"]);
    expect(r.code).toBe(2);
    expect(r.output).toContain("--status and --kill are exclusive");
    const level = await runCli(["scenario", dir, "--log-level", "verbose"]);
    expect(level.code).toBe(2);
    expect(level.output).toContain(
      '--log-level must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    );
  });

  it("--log-level sets the agents' LOG_LEVEL, over the scenario's own", async () => {
    const ports: [number, number] = [await freePort(), await freePort()];
    writeScenario(ports, { green: "--show-env LOG_LEVEL", purple: "--show-env LOG_LEVEL" });
    const toml = readFileSync(join(dir, "scenario.toml"), "utf8");
    writeFileSync(
      join(dir, "scenario.toml"),
      toml.replace(`[[participants]]`, `env = { LOG_LEVEL = "debug" }\n\n[[participants]]`),
    );
    const m = startCli(["scenario", dir, "--log-level", "warn"]);
    managers.push(m);
    await until(() => m.output().includes("running; pid file") || m.child.exitCode !== null, 30_000, "scenario ready");
    expect(m.output()).toContain("[green] env LOG_LEVEL=warn");
    expect(m.output()).toContain("[agent] env LOG_LEVEL=warn");
    m.child.kill("SIGTERM");
    expect((await m.exited).code).toBe(0);
  });
  it("fills a leaderboard-style ${VAR} env value from the env file, and starts nothing when one is unset", async () => {
    const ports: [number, number] = [await freePort(), await freePort()];
    writeScenario(ports);
    const base = readFileSync(join(dir, "scenario.toml"), "utf8").replace(
      "--report-env SECRET_TOKEN",
      "--report-env API_KEY",
    );
    const withEnv = (value: string) =>
      base.replace(`[[participants]]`, `env = { API_KEY = "${value}" }\n\n[[participants]]`);
    writeFileSync(join(dir, "scenario.toml"), withEnv("${SECRET_TOKEN}"));
    const m = await launch();
    expect(m.output()).toContain(`[green] env API_KEY set len=${SECRET.length}`);
    m.child.kill("SIGTERM");
    await m.exited;

    writeFileSync(join(dir, "scenario.toml"), withEnv("${A2A_BENCH_TEST_NEVER_SET}"));
    const r = await runCli(["scenario", dir, "--env-file", join(dir, ".env")]);
    expect(r.code).toBe(1);
    expect(r.output).toContain("green: env API_KEY refers to ${A2A_BENCH_TEST_NEVER_SET}, which is not set");
    expect(r.output).not.toContain("[green]");
    expect(existsSync(join(dir, ".scenario_pids.json"))).toBe(false);
  });
});
