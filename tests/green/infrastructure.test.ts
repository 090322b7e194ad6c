/**
 * The green agent never turns an infrastructure failure into a score, and
 * holds its ground as a service. Real built-in runner (dist/cli.js, needs
 * `npm run build`) and real sandbox for the HumanEval runs; fixture runners
 * for the queue.
 */
import { afterEach, describe, expect, test } from "vitest";
import express from "express";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TaskState, type Task } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { cardFromToml } from "../../src/a2a/shared/card.js";
import { partData, partText } from "../../src/a2a/shared/parts.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { builtinRunnerCommand } from "../../src/green/runner-command.js";
import { QUEUE_FULL_CODE } from "../../src/green/admission.js";
import { createPurpleApp } from "../../src/purple/app.js";
import type { Solver } from "../../src/purple/solver.js";
import { cliEntry } from "../../src/util/package-root.js";
import { assessment, fixtureRunner, requestOf, startGreen, type StartedGreen } from "./helpers.js";

let green: StartedGreen | undefined;
let servers: Server[] = [];
afterEach(async () => {
  await green?.close();
  green = undefined;
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
  servers = [];
});

/** A purple agent mounted under /purple on a gateway-like server; returns the base URL (no trailing slash). */
async function purpleUnderPrefix(solver: Solver): Promise<string> {
  const gw = express();
  const server = createServer(gw);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  gw.use(
    "/purple",
    createPurpleApp({
      card: cardFromToml({ name: "purple", url: `${base}/purple`, version: "1", skills: [] }),
      solver,
    }),
  );
  return base;
}

async function freePortUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return `http://127.0.0.1:${port}/purple`;
}

const statusText = (task: Task) => (task.status?.message?.parts ?? []).map(partText).filter(Boolean).join(" ");
const bundleOf = (task: Task) => {
  const b = partData(task.artifacts.find((a) => a.name === "evaluation_bundle")!.parts[0]!)!;
  expect(validateBundle(b)).toEqual([]);
  return b;
};

const wrongSolver: Solver = {
  mode: "wrong",
  async solve() {
    return { text: "```python\ndef unrelated():\n    return 42\n```" };
  },
};

describe("HumanEval through the green agent and the real runner", () => {
  test(
    "nothing listening at the participant URL → task failed, the reason names the URL; bundle status error, exit 3",
    { timeout: 60_000 },
    async () => {
      if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
      green = await startGreen(builtinRunnerCommand());
      const url = await freePortUrl();
      const client = await createA2AClient(green.url);
      const task = (await client.sendMessage(
        requestOf({
          participants: { agent: url },
          config: { benchmark: "humaneval", samples: 2, run_id: "unreachable" },
        }),
      )) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(statusText(task)).toContain(url);
      expect(statusText(task)).toMatch(/connection refused.*E_PARTICIPANT_UNREACHABLE/);
      const b = bundleOf(task);
      expect(b).toMatchObject({ status: "error", exit_code: 3 });
      expect(b["status_reason"]).toContain(url);
      expect(b["isolation"]).toMatchObject({ backend: "local" });
      const results = JSON.parse(
        readFileSync(join(green.resultsRoot, "a2a", "unreachable", "results.json"), "utf8"),
      ) as Record<string, unknown>;
      expect(results).toMatchObject({ status: "error", rows: [] });
    },
  );

  test.each(["", "/"])(
    "a participant that answers wrongly (served under /purple%s) → completed with its low score",
    { timeout: 60_000 },
    async (slash) => {
      green = await startGreen(builtinRunnerCommand());
      const base = await purpleUnderPrefix(wrongSolver);
      const client = await createA2AClient(green.url);
      const body = {
        participants: { agent: `${base}/purple${slash}` },
        config: { benchmark: "humaneval", samples: 2, run_id: `wrong${slash ? "-slash" : ""}` },
      };
      const task = (await client.sendMessage(requestOf(body))) as Task;
      expect(task.status?.state, statusText(task)).toBe(TaskState.TASK_STATE_COMPLETED);
      const b = bundleOf(task);
      expect(b).toMatchObject({ status: "ok", status_reason: null, exit_code: 0 });
      const m = b["metrics"] as { accuracy: number; failure_modes: Record<string, number> };
      expect(m.accuracy).toBe(0);
      expect(Object.keys(m.failure_modes).length).toBeGreaterThan(0);
      expect(Object.keys(m.failure_modes).every((k) => !k.startsWith("infrastructure_"))).toBe(true);
    },
  );
});

describe("weak isolation over A2A", () => {
  const weak = { isolation: { backend: "local" as const, level: "unshare", warnings: ["bwrap unusable"] } };

  test("is refused without the operator's opt-in, with the fix; /health says degraded; the card says weak", async () => {
    let started = 0;
    green = await startGreen(
      () => {
        started++;
        return { command: process.execPath, args: ["-e", ""] };
      },
      {},
      process.env,
      weak,
    );
    const client = await createA2AClient(green.url);
    const task = (await client.sendMessage(requestOf(assessment()))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(statusText(task)).toMatch(
      /isolation "unshare".*apt-get install -y bubblewrap.*GREEN_ALLOW_WEAK_ISOLATION=1/,
    );
    expect(started).toBe(0);
    const health = await fetch(new URL("health", green.url));
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      status: "degraded",
      isolation: { level: "unshare", full: false, weak_allowed: false },
    });
    const card = (await (await fetch(new URL(".well-known/agent-card.json", green.url))).json()) as {
      description: string;
    };
    expect(card.description).toMatch(/Sandbox isolation: unshare \(weak\)/);
  });

  test("while the start-up probe runs, /health says probing and an assessment waits for its answer (then refused)", async () => {
    let answer!: (r: typeof weak.isolation) => void;
    const probe = new Promise<typeof weak.isolation>((r) => (answer = r));
    let started = 0;
    green = await startGreen(
      () => {
        started++;
        return { command: process.execPath, args: ["-e", ""] };
      },
      {},
      process.env,
      { isolation: probe },
    );
    const card = await fetch(new URL(".well-known/agent-card.json", green.url));
    expect(card.status).toBe(200);
    const probing = await fetch(new URL("health", green.url));
    expect(probing.status).toBe(503);
    expect(await probing.json()).toMatchObject({ status: "starting", isolation: { state: "probing" } });
    const client = await createA2AClient(green.url);
    let settled = false;
    const sent = client.sendMessage(requestOf(assessment())).finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false); // held for the probe's answer, not accepted blindly
    answer(weak.isolation);
    const task = (await sent) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(statusText(task)).toMatch(/isolation "unshare"/);
    expect(started).toBe(0);
    const health = await fetch(new URL("health", green.url));
    expect(await health.json()).toMatchObject({ status: "degraded", isolation: { state: "probed", level: "unshare" } });
    const described = (await (await fetch(new URL(".well-known/agent-card.json", green.url))).json()) as {
      description: string;
    };
    expect(described.description).toMatch(/Sandbox isolation: unshare \(weak\)/);
  });

  test("runs with the opt-in, and the runner is not told to require full isolation", async () => {
    const seen: string[][] = [];
    const runner = fixtureRunner("events.mjs");
    green = await startGreen(
      (c, ctx) => {
        const cmd = runner(c, ctx);
        seen.push(cmd.args);
        return cmd;
      },
      { allowWeakIsolation: true },
      process.env,
      weak,
    );
    const client = await createA2AClient(green.url);
    const task = (await client.sendMessage(requestOf(assessment()))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(seen[0]).not.toContain("--require-full-isolation");
    const health = (await (await fetch(new URL("health", green.url))).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ status: "ok", isolation: { level: "unshare", weak_allowed: true } });
  });

  test("at full isolation the runner is told to require it", async () => {
    const seen: string[][] = [];
    const runner = fixtureRunner("events.mjs");
    green = await startGreen((c, ctx) => {
      const cmd = runner(c, ctx);
      seen.push(cmd.args);
      return cmd;
    });
    const client = await createA2AClient(green.url);
    await client.sendMessage(requestOf(assessment()));
    expect(seen[0]).toContain("--require-full-isolation");
  });
});

describe("bounded queue", () => {
  test(
    "a request beyond running + queued gets a JSON-RPC error naming the limits (both wires)",
    { timeout: 30_000 },
    async () => {
      // Gated runs (never released): the slot and the queue stay full however slow the machine is.
      green = await startGreen(fixtureRunner("gated.mjs"), { maxConcurrent: 1, maxQueued: 1 });
      const client = await createA2AClient(green.url);
      const a = client.sendMessage({
        ...requestOf(assessment({ run_id: "qa" })),
        configuration: {
          acceptedOutputModes: [],
          taskPushNotificationConfig: undefined,
          historyLength: undefined,
          returnImmediately: true,
        },
      });
      await a;
      const b = client.sendMessage({
        ...requestOf(assessment({ run_id: "qb" })),
        configuration: {
          acceptedOutputModes: [],
          taskPushNotificationConfig: undefined,
          historyLength: undefined,
          returnImmediately: true,
        },
      });
      await b;
      for (const version of [undefined, "1.0"]) {
        const method = version ? "SendMessage" : "message/send";
        const message = version
          ? { messageId: "m-full", role: "ROLE_USER", parts: [{ text: JSON.stringify(assessment({ run_id: "qc" })) }] }
          : {
              kind: "message",
              messageId: "m-full",
              role: "user",
              parts: [{ kind: "text", text: JSON.stringify(assessment({ run_id: "qc" })) }],
            };
        const res = await fetch(green.url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(version ? { "A2A-Version": version } : {}) },
          body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: { message } }),
        });
        const body = (await res.json()) as { id: unknown; error?: { code: number; message: string } };
        expect(body.error, JSON.stringify(body)).toBeDefined();
        expect(body.error!.code).toBe(QUEUE_FULL_CODE);
        expect(body.error!.message).toMatch(/GREEN_MAX_QUEUED_TASKS/);
      }
      expect(existsSync(join(green.resultsRoot, "a2a", "qc"))).toBe(false);
    },
  );
});

describe("assessment time limit", () => {
  test("a runner over the limit is stopped and the task fails with the reason", { timeout: 30_000 }, async () => {
    green = await startGreen(fixtureRunner("ignores-term.mjs"), { runnerTimeoutMs: 600, graceMs: 300 });
    const client = await createA2AClient(green.url);
    const task = (await client.sendMessage(requestOf(assessment()))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(statusText(task)).toMatch(/time limit of 0\.6 s \(GREEN_RUNNER_TIMEOUT_SECONDS\).*SIGKILL/);
    expect(bundleOf(task)["status"]).toBe("timed_out");
  });
});
