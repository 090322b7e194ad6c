/**
 * The viewer in headless chromium over an interactive item whose trajectory a real episode wrote (the
 * episode loop, a participant on loopback answering from Terminal-Bench's wire fixtures, a scripted
 * environment, src/interactive/trajectory.ts's writer): each turn's
 * command, exit code and output, the cut the participant saw, the episode's end — with the participant's
 * markup shown as text and nothing run.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { runEpisode } from "../../src/interactive/episode.js";
import { trajectoryFile } from "../../src/interactive/trajectory.js";
import { createA2ATurnSender } from "../../src/interactive/a2a-sender.js";
import { FakeEnvironment, outcome } from "../interactive/fakes.js";
import { serveReplies, terminalBench } from "../interactive/dialect-fixtures.js";
import { launchChromium, open, startViewer, watchedPage, type PageWatch } from "./browser-harness.js";

let tmp: string;
let viewer: Awaited<ReturnType<typeof startViewer>>;
let browser: Browser;
const watches: PageWatch[] = [];

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "a2a-view-interactive-"));
  const run = join(tmp, "results", "swebench", "episode");
  mkdirSync(run, { recursive: true });
  const sink = trajectoryFile(join(run, "swebench", "demo__1", "trajectory.jsonl"));
  const participant = await serveReplies([
    terminalBench({ kind: "exec_request", command: "grep -rn 'def parse' src" }),
    terminalBench({ kind: "exec_request", command: "python -m pytest -q" }),
    terminalBench({ kind: "final" }),
  ]);
  try {
    await runEpisode({
      instruction: "fix parse()",
      participant: createA2ATurnSender({ url: participant.url }),
      environment: new FakeEnvironment((command) =>
        command.startsWith("grep")
          ? outcome({ stdout: "src/p.py:3:def parse(s):\n<img src=x onerror=window.__pwned=1>\n" })
          : outcome({ stdout: "F".repeat(11_000), stderr: "1 failed\n", exitCode: 1 }),
      ),
      trajectory: sink,
    });
  } finally {
    await participant.close();
  }
  await sink.close();
  writeFileSync(
    join(run, "results.json"),
    JSON.stringify({
      run_id: "episode",
      benchmark: "swebench",
      status: "ok",
      rows: [
        {
          id: "demo__1",
          instance_id: "demo__1",
          status: "RESOLVED_NO",
          passed: false,
          failure_mode: "model_tests_failed",
          exit_status: "final",
          turns: 3,
          trajectory: "swebench/demo__1/trajectory.jsonl",
        },
      ],
      aggregate: { resolved_rate: 0 },
    }),
  );
  viewer = await startViewer([join(tmp, "results")]);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  try {
    await browser?.close();
    await viewer?.close();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  for (const watch of watches) {
    expect(watch.dialogs).toEqual([]);
    expect(watch.errors).toEqual([]);
    expect(watch.foreign).toEqual([]);
  }
});

describe("an interactive item in chromium", () => {
  test("the episode's own trajectory file is drawn turn by turn, the end last, markup as text", async () => {
    const { page, watch } = await watchedPage(browser, viewer.base.replace(/\/$/, ""));
    watches.push(watch);
    await open(page, `${viewer.base}#/item/swebench%2Fepisode/demo__1`);
    const turns = page.locator("ol.turns > li");
    await expect.poll(() => turns.count()).toBe(4); // three turns and the episode's end
    const first = await turns.nth(0).innerText();
    expect(first).toContain("grep -rn 'def parse' src");
    expect(first).toContain("<img src=x onerror=window.__pwned=1>");
    const second = await turns.nth(1).innerText();
    expect(second).toContain("python -m pytest -q");
    expect(second).toMatch(/exit\s+1/);
    expect(second).toContain("the participant was sent it cut to head and tail, 1,000 characters elided");
    expect(await turns.nth(2).innerText()).toContain("final answer:");
    expect(await turns.nth(3).innerText()).toContain("episode ended: final\n3 turns answered, 2 commands");
    // The header counts the same turns the end does (the end itself is no turn).
    expect(await page.locator("section.trajectory h2").innerText()).toBe("Trajectory (3 turns)");
    // What was asked: the task message the first turn sent; each turn's raw reply, on request.
    expect(first).toContain("Task sent");
    expect(first).toContain("fix parse()");
    expect(await turns.nth(1).innerText()).not.toContain("Task sent");
    await turns.nth(0).locator("details.raw-reply > summary").click();
    expect(await turns.nth(0).locator("details.raw-reply pre.text").innerText()).toContain("exec_request");
    expect(await page.locator("#app img").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });
});
