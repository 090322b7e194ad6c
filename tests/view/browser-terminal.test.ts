/**
 * The viewer in headless chromium over a terminal run: the run view lists the attempt with its reward, and the
 * item view sets the instruction, the trajectory (written by a real episode loop) and the verifier's verdict
 * and output side by side, in one row, markup shown as text.
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
const INSTRUCTION = "Write 'Hello' to /app/greeting.txt <b>bold?</b>";

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "a2a-view-terminal-"));
  const run = join(tmp, "results", "terminal", "term-run");
  mkdirSync(run, { recursive: true });
  const sink = trajectoryFile(join(run, "terminal", "write-file", "trajectory.jsonl"));
  const participant = await serveReplies([
    terminalBench({ kind: "exec_request", command: "echo Hello > /app/greeting.txt" }),
    terminalBench({ kind: "final" }),
  ]);
  try {
    await runEpisode({
      instruction: INSTRUCTION,
      participant: createA2ATurnSender({ url: participant.url }),
      environment: new FakeEnvironment(() => outcome({ stdout: "" })),
      trajectory: sink,
    });
  } finally {
    await participant.close();
  }
  await sink.close();
  writeFileSync(
    join(run, "results.json"),
    JSON.stringify({
      run_id: "term-run",
      benchmark: "terminal",
      status: "ok",
      rows: [
        {
          id: "write-file",
          task_id: "write-file",
          attempt: 1,
          instruction: INSTRUCTION,
          status: "passed",
          passed: true,
          reward: 1,
          verifier_reward: 1,
          reward_file: "reward.txt",
          verifier_exit_code: 0,
          verifier_timed_out: false,
          verifier_output: "checking /app/greeting.txt\nPASS <script>window.__pwned=1</script>\n",
          tampered: [],
          network: "none",
          engine: "unix:///engines/one/docker.sock",
          exit_status: "final",
          turns: 2,
          commands: 1,
          trajectory: "terminal/write-file/trajectory.jsonl",
          elapsed_seconds: 4.2,
        },
      ],
      aggregate: { reward_mean: 1 },
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

describe("a terminal run in chromium", () => {
  test("the run view lists the attempt; its item view shows instruction, trajectory and verifier side by side", async () => {
    const { page, watch } = await watchedPage(browser, viewer.base.replace(/\/$/, ""));
    watches.push(watch);
    await open(page, `${viewer.base}#/run/terminal%2Fterm-run`);
    expect(await page.locator("#app").innerText()).toContain("write-file");

    await open(page, `${viewer.base}#/item/terminal%2Fterm-run/write-file`);
    const panes = page.locator("#item-panes > .pane");
    await expect.poll(() => panes.count()).toBe(3);
    const [instruction, trajectory, verifier] = [0, 1, 2].map((i) => panes.nth(i));
    expect(await instruction!.innerText()).toContain(INSTRUCTION);
    expect(await trajectory!.innerText()).toContain("echo Hello > /app/greeting.txt");
    expect(await trajectory!.locator("ol.turns > li").count()).toBe(3); // two turns and the episode's end
    const verdict = await verifier!.innerText();
    expect(verdict).toContain("PASS <script>window.__pwned=1</script>");
    expect(verdict).toMatch(/reward\s+1/);
    expect(verdict).toContain("unix:///engines/one/docker.sock");
    // Side by side: one row, left to right, none overlapping.
    const boxes = await Promise.all([instruction!, trajectory!, verifier!].map((p) => p.boundingBox()));
    for (const b of boxes) expect(b).not.toBeNull();
    const [a, b, c] = boxes as Array<{ x: number; y: number; width: number }>;
    expect(a!.y).toBe(b!.y);
    expect(b!.y).toBe(c!.y);
    expect(a!.x + a!.width).toBeLessThanOrEqual(b!.x);
    expect(b!.x + b!.width).toBeLessThanOrEqual(c!.x);
    // The trajectory is drawn once (in its pane), and no separate answer section repeats the verifier's output.
    expect(await page.locator("section.trajectory").count()).toBe(1);
    expect(await page.locator("#app script, #app b").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    if (process.env["A2A_BENCH_VIEW_SCREENSHOT"])
      await page.screenshot({ path: process.env["A2A_BENCH_VIEW_SCREENSHOT"], fullPage: true });
  });
});
