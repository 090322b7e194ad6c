/** Helpers for green-agent tests: fixture runners, a served green app, ps checks. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createGreenApp, type GreenApp } from "../../src/green/app.js";
import { builtinRunnerCommand, type RunnerCommandFn } from "../../src/green/runner-command.js";
import type { GreenSettings } from "../../src/green/settings.js";
import type { IsolationReport } from "../../src/green/isolation.js";
import { userMessage, textPart } from "../../src/a2a/shared/parts.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import type { SendMessageRequest } from "@a2a-js/sdk";

export const RUNNERS_DIR = resolve(import.meta.dirname, "..", "fixtures", "runners");

/** A fixture runner invoked exactly like the built-in runner (`run <benchmark> --config-file ...`). */
export function fixtureRunner(name: string): RunnerCommandFn {
  return builtinRunnerCommand(join(RUNNERS_DIR, name));
}

export interface StartedGreen {
  url: string;
  green: GreenApp;
  resultsRoot: string;
  close(): Promise<void>;
}

/** A full-isolation report for greens whose runners use no sandbox. */
export const FULL_ISOLATION: IsolationReport = { backend: "local", level: "bwrap", warnings: [] };

export async function startGreen(
  runner: RunnerCommandFn,
  settings: Partial<GreenSettings> = {},
  env: NodeJS.ProcessEnv = process.env,
  options: { isolation?: IsolationReport | Promise<IsolationReport> } = {},
): Promise<StartedGreen> {
  const resultsRoot = mkdtempSync(join(tmpdir(), "green-test-"));
  let green!: GreenApp;
  const served = await serveOnLoopback((card) => {
    green = createGreenApp({
      card,
      runnerCommand: runner,
      env,
      settings: { resultsRoot, graceMs: 1_000, heartbeatMs: 30_000, maxConcurrent: 1, ...settings },
      // Fixture runners use no sandbox: a fixed report instead of probing this machine per test.
      isolation: options.isolation ?? FULL_ISOLATION,
    });
    return green.app;
  });
  return {
    url: served.url,
    green,
    resultsRoot,
    close: async () => {
      await green.shutdown();
      await served.close();
      rmSync(resultsRoot, { recursive: true, force: true });
    },
  };
}

/** A send request whose TextPart is the JSON `body`. */
export function requestOf(body: unknown, raw?: string): SendMessageRequest {
  return {
    tenant: "",
    message: userMessage([textPart(raw ?? JSON.stringify(body))]),
    configuration: undefined,
    metadata: undefined,
  };
}

/** Standard AgentBeats-shaped body. */
export function assessment(config: Record<string, unknown> = {}): unknown {
  return { participants: { agent: "http://127.0.0.1:9/" }, config: { benchmark: "humaneval", ...config } };
}

/** Live (non-zombie) pids of process group `pgid`, from `ps`. */
export function psGroup(pgid: number): number[] {
  const out = execFileSync("ps", ["-eo", "pid=,pgid=,stat="], { encoding: "utf8" });
  return out
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length >= 3 && Number(f[1]) === pgid && !(f[2] ?? "").startsWith("Z"))
    .map((f) => Number(f[0]));
}

/** Whether pid is alive and not a zombie, from `ps`. */
export function psAlive(pid: number): boolean {
  try {
    const stat = execFileSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).trim();
    return stat !== "" && !stat.startsWith("Z");
  } catch {
    return false;
  }
}
