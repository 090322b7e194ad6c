/**
 * The time budget through the green agent, the real built-in runner (dist/cli.js, needs `npm run build`)
 * and the real sandbox: a participant that stops answering is not waited for past `time_budget_seconds`;
 * the task still ends `completed` with a bundle marked partial (items not run listed, never failures), and
 * a later request with the same run_id and `resume: true` judges the rest from the checkpoint.
 */
import { afterEach, describe, expect, test } from "vitest";
import express from "express";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync } from "node:fs";
import { TaskState, type StreamResponse } from "@a2a-js/sdk";
import { createA2AClient } from "../../src/a2a/client/client.js";
import { cardFromToml } from "../../src/a2a/shared/card.js";
import { partData, partText } from "../../src/a2a/shared/parts.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { builtinRunnerCommand } from "../../src/green/runner-command.js";
import { createPurpleApp } from "../../src/purple/app.js";
import type { Solver } from "../../src/purple/solver.js";
import { cliEntry } from "../../src/util/package-root.js";
import { collect } from "../a2a/helpers.js";
import { requestOf, startGreen, type StartedGreen } from "./helpers.js";

let green: StartedGreen | undefined;
let server: Server | undefined;
afterEach(async () => {
  await green?.close();
  green = undefined;
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A participant that answers the first `quick` questions at once and holds the rest until `release`. */
function stallingSolver(quick: number): { solver: Solver; release(): void; asked(): number } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let asked = 0;
  const answer = { text: "```python\ndef unrelated():\n    return 42\n```" };
  return {
    solver: {
      mode: "stalling",
      async solve() {
        asked++;
        if (asked > quick) await gate;
        return answer;
      },
    },
    release,
    asked: () => asked,
  };
}

async function servePurple(solver: Solver): Promise<string> {
  const app = express();
  server = createServer(app);
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/purple`;
  app.use(
    "/purple",
    createPurpleApp({ card: cardFromToml({ name: "purple", url, version: "1", skills: [] }), solver }),
  );
  return url;
}

function statusTexts(events: StreamResponse[]): string[] {
  return events
    .filter((e) => e.payload?.$case === "statusUpdate")
    .map((e) =>
      (e.payload?.$case === "statusUpdate" ? (e.payload.value.status?.message?.parts ?? []) : [])
        .map(partText)
        .filter(Boolean)
        .join(" "),
    );
}

function finalTask(events: StreamResponse[]): { state: TaskState | undefined; bundle: Record<string, unknown> } {
  let state: TaskState | undefined;
  let bundle: Record<string, unknown> | undefined;
  for (const e of events) {
    if (e.payload?.$case === "statusUpdate") state = e.payload.value.status?.state;
    if (e.payload?.$case === "artifactUpdate" && e.payload.value.artifact?.name === "evaluation_bundle")
      bundle = partData(e.payload.value.artifact.parts[0]!) ?? undefined;
    if (e.payload?.$case === "task") {
      const task = e.payload.value;
      state = task.status?.state;
      const art = task.artifacts.find((a) => a.name === "evaluation_bundle");
      if (art) bundle = partData(art.parts[0]!) ?? undefined;
    }
  }
  expect(bundle, "evaluation_bundle artifact").toBeDefined();
  expect(validateBundle(bundle)).toEqual([]);
  return { state, bundle: bundle! };
}

describe("time budget through the green agent", () => {
  test(
    "a budget that runs out ends completed with a partial bundle; resume judges the rest",
    { timeout: 240_000 },
    async () => {
      if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
      green = await startGreen(builtinRunnerCommand());
      const participant = stallingSolver(2);
      const agent = await servePurple(participant.solver);
      const client = await createA2AClient(green.url);
      const config = { benchmark: "humaneval", samples: 4, run_id: "budget", concurrency: 1 };

      // Items past the second wait on a participant that does not answer: only the budget ends them.
      const first = await collect(
        client.sendMessageStream(requestOf({ participants: { agent }, config: { ...config, time_budget_seconds: 8 } })),
      );
      const texts = statusTexts(first);
      expect(texts[0]).toMatch(/^Starting humaneval run budget; estimate .* for 4 item\(s\) left .*time budget of 8 s/);
      expect(texts.find((t) => t.startsWith("Run budget started:"))).toMatch(/estimate .* for 4 item\(s\) left/);
      expect(texts.some((t) => t.startsWith("Run budget ended partial: its time budget of 8 s ran out"))).toBe(true);
      const partial = finalTask(first);
      expect(partial.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(partial.bundle).toMatchObject({ status: "ok", exit_code: 0, partial: true });
      const notRun = partial.bundle["not_run"] as string[];
      const metrics = partial.bundle["metrics"] as Record<string, unknown>;
      // The held items are not run; what was judged is scored, and the two add up to the selection.
      expect(notRun.length).toBeGreaterThanOrEqual(2);
      expect(metrics["items_not_run"]).toBe(notRun.length);
      expect(Number(metrics["total"] ?? 0) + notRun.length).toBe(4);
      // Not run is never a failure: no error entry names an item not run.
      const errors = partial.bundle["errors"] as Array<{ package_id: string }>;
      expect(errors.filter((e) => notRun.includes(e.package_id))).toEqual([]);

      // The same run resumed, the participant answering again: only the items not run are asked.
      participant.release();
      const askedBefore = participant.asked();
      const second = await collect(
        client.sendMessageStream(requestOf({ participants: { agent }, config: { ...config, resume: true } })),
      );
      const whole = finalTask(second);
      expect(whole.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(whole.bundle["partial"]).toBeUndefined();
      expect(whole.bundle["metrics"]).toMatchObject({ total: 4, accuracy: 0 });
      expect(participant.asked() - askedBefore).toBe(notRun.length);
      const judged = 4 - notRun.length;
      if (judged > 0)
        expect(statusTexts(second).find((t) => t.startsWith("Run budget started:"))).toContain(
          `${judged} resumed from the checkpoint`,
        );
    },
  );
});
