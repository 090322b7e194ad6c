/**
 * The Amber green's docker slot reaches the runner: the manifest sets DOCKER_HOST (the framework's docker
 * gateway, never the default socket) in the green's environment, and a `sandbox: "docker"` request must run
 * its jobs on that engine. Real green app, real built-in runner (dist/cli.js), real engine — reached through
 * a socket path of its own, with the default engine dir emptied, so only DOCKER_HOST can lead the runner there.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskState, type Task } from "@a2a-js/sdk";
import { packageRoot, cliEntry } from "../../src/util/package-root.js";
import { runnerEnv } from "../../src/green/supervisor/env.js";
import { builtinRunnerCommand } from "../../src/green/runner-command.js";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { cardFromToml } from "../../src/a2a/shared/card.js";
import { partData, partText } from "../../src/a2a/shared/parts.js";
import { createPurpleApp } from "../../src/purple/app.js";
import { settingsFromEnv } from "../../src/green/settings.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { requestOf, startGreen, type StartedGreen } from "../green/helpers.js";
import { testEngine } from "../support/container-engine.js";
import { readManifest, type Json } from "./amber-rules.js";

type Obj = { [k: string]: Json };
const manifestEnv = (): Record<string, string> => {
  const m = readManifest(join(packageRoot, "amber", "green", "amber-manifest.json5"));
  const env = (m["program"] as Obj)["env"] as Obj;
  return Object.fromEntries(
    Object.entries(env).map(([k, v]) => [k, typeof v === "string" ? v : ((v as Obj)["value"] as string)]),
  );
};

describe("the Amber green manifest's environment reaches its runners", () => {
  it("every variable it sets is either the green's own setting (GREEN_*) or passed on to the runner", () => {
    const env = manifestEnv();
    expect(env["DOCKER_HOST"]).toBe("${slots.docker.url}");
    const values = Object.fromEntries(Object.keys(env).map((k) => [k, "v"]));
    const passed = runnerEnv(values, settingsFromEnv({}).runnerEnvAllow); // no GREEN_RUNNER_ENV_ALLOW needed
    for (const k of Object.keys(env)) {
      if (k.startsWith("GREEN_")) continue;
      expect(passed, `${k} must reach the runner`).toHaveProperty(k, "v");
    }
  });
});

const engine = await testEngine();

describe.skipIf(engine.env === null)(
  `a sandbox: docker request runs on the engine at the green's DOCKER_HOST${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    let dir: string;
    let host: string;
    let purpleUrl: string;
    let closePurple: () => Promise<void>;
    let green: StartedGreen | undefined;

    beforeAll(async () => {
      if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
      const real = engine.env!["DOCKER_HOST"]!;
      expect(real).toMatch(/^unix:\/\//);
      dir = mkdtempSync(join(tmpdir(), "amber-engine-"));
      // The engine on a socket path no default leads to (Amber's slot URL is likewise the framework's own).
      symlinkSync(real.slice("unix://".length), join(dir, "gateway.sock"));
      mkdirSync(join(dir, "no-engine-here"));
      host = `unix://${join(dir, "gateway.sock")}`;
      const served = await serveOnLoopback((_card, port) =>
        createPurpleApp({
          card: cardFromToml({ name: "purple", url: `http://127.0.0.1:${port}/`, version: "1", skills: [] }),
          solver: {
            mode: "wrong",
            async solve() {
              return { text: "```python\ndef unrelated():\n    return 42\n```" };
            },
          },
        }),
      );
      purpleUrl = served.url;
      closePurple = () => served.close();
    });
    afterAll(async () => {
      await green?.close();
      await closePurple?.();
      rmSync(dir, { recursive: true, force: true });
    });

    /** The green's environment as the manifest makes it: DOCKER_HOST from the slot; no default engine to fall back on. */
    const greenEnv = (withSlot: boolean): NodeJS.ProcessEnv => {
      const { DOCKER_HOST: _unset, ...rest } = process.env;
      const fromManifest = manifestEnv();
      return {
        ...rest,
        GREEN_ALLOW_UNAUTHENTICATED: fromManifest["GREEN_ALLOW_UNAUTHENTICATED"],
        A2A_BENCH_ENGINE_DIR: join(dir, "no-engine-here"),
        ...(withSlot ? { DOCKER_HOST: fromManifest["DOCKER_HOST"]!.replace("${slots.docker.url}", host) } : {}),
      };
    };

    const assess = async (withSlot: boolean, runId: string): Promise<Task> => {
      await green?.close();
      green = await startGreen(builtinRunnerCommand(), {}, greenEnv(withSlot));
      const client = await createA2AClient(green.url);
      return (await client.sendMessage(
        requestOf({
          participants: { agent: purpleUrl },
          config: { benchmark: "humaneval", samples: 1, sandbox: "docker", run_id: runId },
        }),
      )) as Task;
    };
    const statusText = (task: Task) => (task.status?.message?.parts ?? []).map(partText).filter(Boolean).join(" ");

    it("with the slot bound: completed, isolation docker", { timeout: 180_000 }, async () => {
      const task = await assess(true, "amber-docker");
      expect(task.status?.state, statusText(task)).toBe(TaskState.TASK_STATE_COMPLETED);
      const bundle = partData(task.artifacts.find((a) => a.name === "evaluation_bundle")!.parts[0]!)!;
      expect(bundle["isolation"]).toMatchObject({ backend: "docker", level: "docker" });
      expect(bundle).toMatchObject({ status: "ok", exit_code: 0 });
    });

    it("without it (the control): the run fails and names the engine it tried", { timeout: 180_000 }, async () => {
      const task = await assess(false, "amber-no-docker");
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(statusText(task)).toMatch(/default engine \(DOCKER_HOST unset\)/);
    });
  },
);
