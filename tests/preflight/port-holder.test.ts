/**
 * preflight's advice for a taken scenario port matches how its holder was started:
 * `a2a-bench scenario --kill` only for an agent the scenario's pid file records
 * (and that is still that process); otherwise the holder's pid and command line.
 * Against a real process listening on loopback.
 */
import { afterAll, beforeAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { portAdvice, portHolderProbe, type PortHolder } from "../../src/preflight/port-holder.js";
import { readPidFile, writePidFile, type PidFile } from "../../src/scenario/pid-file.js";
import { procInfo } from "../../src/process/proc-scan.js";
import { defaultScenarioDir } from "../../src/util/package-root.js";
import { startListener, type Listener } from "../support/listener.js";

let listener: Listener;
let dir: string;
beforeAll(async () => {
  listener = await startListener();
});
afterAll(async () => {
  await listener.stop();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "a2a-preflight-holder-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid file naming the listener as the scenario's purple agent; `identity` overrides what is recorded. */
async function recordListener(identity: Partial<{ startTime: number; cmdline: string[] }> = {}): Promise<void> {
  const info = procInfo(listener.pid)!;
  const self = procInfo(process.pid)!;
  const doc: PidFile = {
    schema_version: 1,
    scenario_manager_pid: process.pid,
    owner: { pid: process.pid, startTime: self.startTime, cmdline: self.cmdline, kind: "library" },
    scenario_file: join(dir, "scenario.toml"),
    started_at: new Date().toISOString(),
    env_keys: [],
    agents: [
      {
        name: "purple",
        is_green: false,
        pid: listener.pid,
        pgid: info.pgid,
        startTime: identity.startTime ?? info.startTime,
        cmdline: identity.cmdline ?? info.cmdline,
        host: "127.0.0.1",
        port: listener.port,
        endpoint: `http://127.0.0.1:${listener.port}/`,
        card_url: `http://127.0.0.1:${listener.port}/.well-known/agent-card.json`,
      },
    ],
  };
  await writePidFile(dir, doc);
}

const address = (): string => `127.0.0.1:${listener.port}`;

describe("who holds a scenario port, and the advice", () => {
  it("an agent started by hand: its pid and command are named, `scenario --kill` is not suggested", async () => {
    const holder = await portHolderProbe()(dir, listener.port);
    expect(holder).toMatchObject({ kind: "process", pid: listener.pid });
    expect((holder as { command: string }).command).toContain(process.execPath);
    const advice = portAdvice(holder, address(), dir);
    expect(advice).toContain(`pid ${listener.pid}`);
    expect(advice).toContain(`kill ${listener.pid}`);
    expect(advice).not.toContain("--kill");
  });

  it("an agent the scenario's pid file records: `a2a-bench scenario <dir> --kill`", async () => {
    await recordListener();
    const holder = await portHolderProbe()(dir, listener.port);
    expect(holder).toEqual({ kind: "scenario", pid: listener.pid, agent: "purple" });
    expect(portAdvice(holder, address(), dir, tmpdir())).toContain(
      `\`a2a-bench scenario ${dir.slice(tmpdir().length + 1)} --kill\` stops it`,
    );
    expect(portAdvice(holder, address(), defaultScenarioDir)).toContain("`a2a-bench scenario --kill` stops it");
  });

  it("a pid file whose record is not that process any more (pid reused): named as a stranger, no --kill", async () => {
    await recordListener({ startTime: 1 });
    const holder = await portHolderProbe()(dir, listener.port);
    expect(holder).toMatchObject({ kind: "process", pid: listener.pid });
    expect(portAdvice(holder, address(), dir)).not.toContain("--kill");
  });

  it("a holder /proc does not show: the pid file's live record still answers; else the generic advice", async () => {
    const hidden = portHolderProbe({ listeningPids: () => [], procInfo, readPidFile: () => undefined });
    const unknown: PortHolder = await hidden(dir, listener.port);
    expect(unknown).toEqual({ kind: "unknown" });
    expect(portAdvice(unknown, address(), dir)).toMatch(/stop the process you started by hand/);
    expect(portAdvice(unknown, address(), dir)).not.toContain("--kill");
    await recordListener();
    const recorded = await portHolderProbe({ listeningPids: () => [], procInfo, readPidFile })(dir, listener.port);
    expect(recorded).toEqual({ kind: "scenario", pid: listener.pid, agent: "purple" });
  });
});
