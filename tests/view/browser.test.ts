/**
 * The viewer end to end in headless chromium, over real HumanEval runs made
 * by the CLI from samples files (one with failing and hostile answers, one
 * all-reference) and a hand-made run whose item links a trajectory: every
 * view, its shareable URL, the filters, and that answers written as markup
 * stay text (nothing runs, no dialog, the text shows literally) — in the
 * served viewer and in an exported page opened from disk.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import {
  GREEN_FAILURE_LINE,
  HOSTILE_ANSWER,
  makeGreenFailedRun,
  makeHumanEvalRun,
  makeLargeRun,
  makeSwebenchRun,
  makeTrajectoryRun,
} from "./fixture-runs.js";
import { SAMPLE_PROBLEMS } from "../../src/benchmarks/humaneval/sample-dataset.js";
import { INSTRUCTION } from "../../src/benchmarks/humaneval/request.js";
import { launchChromium, open, startViewer, watchedPage, type PageGlobals, type PageWatch } from "./browser-harness.js";
import { writeExport } from "../../src/view/export-page.js";

let tmp: string;
let root: string;
let viewer: Awaited<ReturnType<typeof startViewer>>;
let browser: Browser;
let swebench: Awaited<ReturnType<typeof makeSwebenchRun>>;
const pages: Array<{ page: Page; watch: PageWatch }> = [];

const MIXED = "humaneval%2Fmixed";

async function newPage(origin: string | null = viewer.base.replace(/\/$/, "")) {
  const p = await watchedPage(browser, origin);
  pages.push(p);
  return p;
}

const rowsOf = (page: Page, table: string) => page.locator(`${table} tbody tr`);

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "a2a-view-e2e-"));
  root = join(tmp, "results");
  makeHumanEvalRun(root, "mixed", { wrong: [1, 3], hostile: [2] });
  makeHumanEvalRun(root, "gold", { wrong: [], hostile: [] });
  // A second run of the participant of "mixed": one group of two runs on the leaderboard. Runs are ordered by
  // their start (seconds, with fractions): it starts strictly after "mixed" so that it is the group's latest.
  const mixedStart = JSON.parse(readFileSync(join(root, "humaneval", "mixed", "results.json"), "utf8")) as {
    timings?: { started_at_unix_seconds?: number };
  };
  const after = mixedStart.timings?.started_at_unix_seconds ?? Date.now() / 1000;
  while (Date.now() / 1000 <= Math.ceil(after)) await new Promise((r) => setTimeout(r, 20));
  makeHumanEvalRun(root, "rerun", { wrong: [1], hostile: [], participant: "mixed" });
  makeTrajectoryRun(root);
  swebench = await makeSwebenchRun(root, "swe", 1);
  await makeGreenFailedRun(root, "green-fail");
  viewer = await startViewer([root]);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  try {
    await browser?.close();
    await viewer?.close();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  // Nothing a participant wrote ran, on any page, in any test.
  for (const { watch } of pages) {
    expect(watch.dialogs).toEqual([]);
    expect(watch.errors).toEqual([]);
    expect(watch.foreign).toEqual([]);
  }
});

describe("a2a-bench view in chromium", () => {
  test("the runs: benchmark, participant, status, score, isolation, item counts", async () => {
    const { page } = await newPage();
    await open(page, viewer.base);
    await expect.poll(() => rowsOf(page, "#runs-table").count()).toBe(6);
    const results = JSON.parse(readFileSync(join(root, "humaneval", "mixed", "results.json"), "utf8"));
    const row = page.locator("#runs-table tbody tr", { hasText: "humaneval/mixed" });
    const text = await row.innerText();
    expect(text).toContain("humaneval");
    expect(text).toContain("predictions: mixed-samples.jsonl");
    expect(text).toContain("ok");
    expect(text).toContain(`pass@1 ${(results.aggregate.pass_at_k["pass@1"] * 100).toFixed(1)} %`);
    expect(text).toContain(results.isolation.level);
    expect(text).toContain("12 / 12");
    expect(text).toContain("9 passed");
  });

  test("one run: charts, filters by status and failure mode, id search, sorting, completions; the URL reopens the view", async () => {
    const { page } = await newPage();
    await open(page, `${viewer.base}#/run/${MIXED}`);
    expect(await page.locator("figure.chart-box svg").count()).toBe(3);
    expect(await page.locator("figure.chart-box figcaption").allInnerTexts()).toEqual([
      "pass@k",
      "Failure modes",
      expect.stringMatching(/^Time per item \(12; median /),
    ]);
    expect(await page.locator("figure.chart-box").nth(1).innerText()).toContain("model_syntax_error");
    await expect.poll(() => rowsOf(page, "#items-table").count()).toBe(12);

    await page.selectOption('select[name="status"]', "failed");
    await expect.poll(() => rowsOf(page, "#items-table").count()).toBe(2);
    expect(await page.locator("#items-table tbody td:first-child").allInnerTexts()).toEqual([
      "A2ABench/1",
      "A2ABench/3",
    ]);
    const shared = page.url();
    expect(shared).toContain("status=failed");

    await page.selectOption('select[name="status"]', "");
    await page.selectOption('select[name="mode"]', "model_syntax_error");
    await expect.poll(() => page.locator("#items-table tbody td:first-child").allInnerTexts()).toEqual(["A2ABench/2"]);
    await page.selectOption('select[name="mode"]', "");
    await page.fill('input[name="q"]', "bench/4");
    await expect.poll(() => page.locator("#items-table tbody td:first-child").allInnerTexts()).toEqual(["A2ABench/4"]);
    await page.fill('input[name="q"]', "");
    await expect.poll(() => rowsOf(page, "#items-table").count()).toBe(12);

    await page.getByRole("button", { name: "Status" }).click();
    await page.getByRole("button", { name: /Status/ }).click(); // descending
    const statuses = await page.locator("#items-table tbody td:nth-child(2)").allInnerTexts();
    expect(statuses).toEqual([...statuses].sort().reverse());
    expect(page.url()).toContain("sort=status");

    await page.selectOption('select[name="unit"]', "completions");
    await expect.poll(() => rowsOf(page, "#items-table").count()).toBe(15); // 12 reference + 2 wrong + 1 hostile

    // The shared URL opens the same filtered view in a fresh page.
    const other = (await newPage()).page;
    await open(other, shared);
    await expect
      .poll(() => other.locator("#items-table tbody td:first-child").allInnerTexts())
      .toEqual(["A2ABench/1", "A2ABench/3"]);
    expect(await other.locator('select[name="status"]').inputValue()).toBe("failed");
  });

  test("one item: verdict, answers as text, test output, raw files; an answer written as markup does not run", async () => {
    const { page } = await newPage();
    await open(page, `${viewer.base}#/run/${MIXED}`);
    await page.getByRole("link", { name: "A2ABench/2" }).click();
    await page.waitForFunction(() =>
      (globalThis as unknown as PageGlobals).document.body.dataset["ready"]?.startsWith("#/item/"),
    );
    expect(page.url()).toContain("#/item/humaneval%2Fmixed/A2ABench%2F2");
    const verdict = await page.locator("section.verdict").innerText();
    expect(verdict).toContain("model_syntax_error");
    expect(verdict).toMatch(/SyntaxError/);
    // The failing completion is open; its answer is shown literally.
    const answer = page.locator("details[open] pre.text").first();
    expect(await answer.innerText()).toBe(HOSTILE_ANSWER);
    expect(await page.locator("details[open]").innerText()).toContain("stderr_tail");
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
    expect(await page.locator("#app img, #app script").count()).toBe(0);
    // The other completion renders when opened.
    await page.locator("details:not([open]) > summary").first().click();
    await expect.poll(() => page.locator("details[open]").count()).toBe(2);

    const link = page.getByRole("link", { name: "results.json" }).first();
    const href = await link.getAttribute("href");
    expect(href).toBe("/raw?run=humaneval%2Fmixed&path=results.json");
    const raw = await page.request.get(new URL(href!, viewer.base).toString());
    expect(raw.headers()["content-type"]).toBe("text/plain; charset=utf-8");
    expect((await raw.json()).run_id).toBe("mixed");
  });

  test("the leaderboard groups real runs by participant and benchmark, ranks within a benchmark, sorts and filters", async () => {
    const { page } = await newPage();
    await open(page, `${viewer.base}#/leaderboard`);
    const rows = page.locator("#board-table tbody tr.group");
    await expect.poll(() => rows.count()).toBe(5); // 6 runs; "mixed" and "rerun" are one participant
    const participants = () => page.locator("#board-table tbody td.participant").allInnerTexts();
    // By benchmark, best first: gold 100 %, mixed's latest ok run below it, the failed green run unranked.
    expect(await participants()).toEqual([
      "predictions: gold-samples.jsonl",
      "predictions: mixed-samples.jsonl",
      "http://127.0.0.1:9/",
      "http://127.0.0.1:9/",
      "predictions: swe-predictions.jsonl",
    ]);
    expect(await page.locator("#board-table tbody td.rank").allInnerTexts()).toEqual(["1", "2", "—", "1", "1"]);
    // A heading per benchmark names its headline metric.
    expect(await page.locator("#board-table tbody tr.bench-head").allInnerTexts()).toEqual([
      "humaneval · pass@1",
      "interactive-fixture · accuracy",
      "swebench · resolved",
    ]);
    const mixed = await rows.nth(1).innerText();
    const rerun = JSON.parse(readFileSync(join(root, "humaneval", "rerun", "results.json"), "utf8"));
    expect(mixed).toContain(`pass@1 ${(rerun.aggregate.pass_at_k["pass@1"] * 100).toFixed(1)} %`);
    expect(mixed).toMatch(/95 % CI [\d.]+–[\d.]+ % · Wilson, 12 items/);
    expect(mixed).toContain("humaneval/rerun"); // the latest ok run of the group
    expect(mixed).toContain("1 other run");
    expect(mixed).toMatch(/single_shot[\s\S]*sample \([0-9a-f]{8}\)/);
    const failed = await rows.nth(2).innerText();
    expect(failed).toContain("no score");
    expect(failed).toContain(GREEN_FAILURE_LINE);
    // 2 of 3 resolved: Wilson's 95 % interval is 20.8–93.9 %.
    expect(await rows.nth(4).innerText()).toContain("resolved 66.7 %");
    expect(await rows.nth(4).innerText()).toContain("95 % CI 20.8–93.9 %");

    // Sorted by the headline, highest first; groups without a score last.
    await page.getByRole("button", { name: "Headline (95 % CI)" }).click();
    await expect.poll(() => page.url()).toContain("sort=score");
    await expect
      .poll(() => participants())
      .toEqual([
        "predictions: gold-samples.jsonl",
        "predictions: mixed-samples.jsonl",
        "predictions: swe-predictions.jsonl",
        "http://127.0.0.1:9/",
        "http://127.0.0.1:9/",
      ]);
    await page.getByRole("button", { name: /Headline/ }).click(); // ascending; still no score last
    await expect.poll(() => participants().then((p) => p[0])).toBe("http://127.0.0.1:9/"); // accuracy 0 %
    expect((await participants())[4]).toBe("http://127.0.0.1:9/");

    await page.selectOption('select[name="bench"]', "humaneval");
    await expect.poll(() => rows.count()).toBe(3);
    await page.fill('input[name="q"]', "gold");
    await expect.poll(() => participants()).toEqual(["predictions: gold-samples.jsonl"]);
    await expect.poll(() => page.url()).toContain("q=gold");
    const shared = page.url();
    expect(shared).toContain("bench=humaneval");
    const other = (await newPage()).page;
    await open(other, shared);
    expect(await other.locator("#board-table tbody td.participant").allInnerTexts()).toEqual([
      "predictions: gold-samples.jsonl",
    ]);
  });

  test("the runs list filters and sorts; a failed run directory is listed with why it failed", async () => {
    const { page } = await newPage();
    await open(page, viewer.base);
    const fail = page.locator("#runs-table tbody tr", { hasText: "humaneval/green-fail" });
    const failText = await fail.innerText();
    expect(failText).toContain("error");
    expect(failText).toContain("runner_failed");
    expect(failText).toContain(GREEN_FAILURE_LINE);
    expect(failText).toContain("2023-11-14 22:13 UTC"); // the runner's start, from the bundle's timings
    const swe = await page.locator("#runs-table tbody tr", { hasText: "swebench/swe" }).innerText();
    expect(swe).toContain("resolved 66.7 % (95 % CI 20.8–93.9 %)");

    await page.selectOption('select[name="status"]', "error");
    await expect
      .poll(() => page.locator("#runs-table tbody td:nth-child(2)").allInnerTexts())
      .toEqual(["humaneval/green-fail"]);
    await page.selectOption('select[name="status"]', "");
    await page.selectOption('select[name="bench"]', "humaneval");
    await expect.poll(() => rowsOf(page, "#runs-table").count()).toBe(4);
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await expect
      .poll(() => page.locator("#runs-table tbody td:nth-child(2)").allInnerTexts())
      .toEqual(["humaneval/gold", "humaneval/green-fail", "humaneval/mixed", "humaneval/rerun"]);
    await page.getByRole("button", { name: /^Run/ }).click();
    await expect
      .poll(() => page.locator("#runs-table tbody td:nth-child(2)").allInnerTexts())
      .toEqual(["humaneval/rerun", "humaneval/mixed", "humaneval/green-fail", "humaneval/gold"]);
    await page.fill('input[name="q"]', "gold");
    await expect
      .poll(() => page.locator("#runs-table tbody td:nth-child(2)").allInnerTexts())
      .toEqual(["humaneval/gold"]);
    expect(page.url()).toMatch(/bench=humaneval.*q=gold.*sort=key.*desc=1/);

    await open(page, `${viewer.base}#/run/humaneval%2Fgreen-fail`);
    expect(await page.locator(".run-head .error-box").innerText()).toContain(GREEN_FAILURE_LINE);
  });

  test("a run page draws no stray null and links to its benchmark on the leaderboard", async () => {
    const { page } = await newPage();
    await open(page, `${viewer.base}#/run/${MIXED}`);
    await expect.poll(() => rowsOf(page, "#items-table").count()).toBe(12);
    expect(await page.locator("#app").innerText()).not.toMatch(/\bnull\b/);
    expect(await page.locator(".run-head").innerText()).toMatch(/Mode\s+single_shot/);
    await page.locator("#to-leaderboard").click();
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.body.dataset["ready"] === "#/leaderboard",
    );
    expect(page.url()).toContain("bench=humaneval");
    expect(await page.locator("#board-table tbody tr.highlight td.participant").allInnerTexts()).toEqual([
      "predictions: mixed-samples.jsonl",
    ]);
  });

  test("a SWE-bench item: the issue and its tests as lists, the final diff as a diff, test results as lists", async () => {
    const inst = swebench.instances[0]!;
    const { page } = await newPage();
    await open(page, `${viewer.base}#/item/swebench%2Fswe/${encodeURIComponent(inst.instance_id)}`);
    const task = page.locator("#item-task");
    expect(await task.innerText()).toContain(inst.problem_statement.trim().split("\n")[0]!);
    expect(await task.locator("ul.tests li").allInnerTexts()).toEqual([...inst.FAIL_TO_PASS, ...inst.PASS_TO_PASS]);
    const tests = page.locator("#item-tests");
    expect(await tests.locator("li.test-pass").allInnerTexts()).toEqual(
      [...inst.FAIL_TO_PASS, ...inst.PASS_TO_PASS].map((t) => `✓ ${t}`),
    );
    expect(await tests.locator("li.test-fail").count()).toBe(0);
    const diff = page.locator("#item-diff");
    const added = await diff.locator(".d-add").allInnerTexts();
    const removed = await diff.locator(".d-del").allInnerTexts();
    expect(added.length).toBeGreaterThan(0);
    expect(removed.length).toBeGreaterThan(0);
    expect(added.every((l) => l.startsWith("+"))).toBe(true);
    expect(removed.every((l) => l.startsWith("-"))).toBe(true);
    expect(inst.patch).toContain(added[0]!);
    expect(await diff.locator(".d-hunk").count()).toBeGreaterThan(0);
    // No raw JSON dump of the test status.
    expect(await page.locator("#app").innerText()).not.toContain('"FAIL_TO_PASS"');
  });

  test("a HumanEval item shows the prompt it was asked and never the answer channel's encoding", async () => {
    const { page } = await newPage();
    await open(page, `${viewer.base}#/item/${MIXED}/A2ABench%2F1`);
    const task = await page.locator("#item-task").innerText();
    // A predictions run: nothing was sent, the prompt is what the answers were written for.
    expect(task).toContain("nothing was sent");
    expect(task).not.toContain(INSTRUCTION);
    expect(task).toContain(SAMPLE_PROBLEMS[1]!.prompt.trim().split("\n")[0]!);
    // Every completion opened: the passed one's stdout carried our encoding, which is not shown.
    for (const s of await page.locator("details.completion:not([open]) > summary").all()) await s.click();
    await expect.poll(() => page.locator("details.completion[open]").count()).toBe(2);
    const text = await page.locator("#app").innerText();
    expect(text).not.toMatch(/"ok":\s*(true|false)/);
    expect(text).not.toContain("stdout_tail");
    expect(text).toContain("the channel the harness's checker reads the answers on");
  });

  test("two runs side by side: only the items whose verdict differs", async () => {
    const { page } = await newPage();
    await open(page, viewer.base);
    await page.getByRole("checkbox", { name: "select humaneval/mixed to compare" }).check();
    await page.getByRole("checkbox", { name: "select humaneval/gold to compare" }).check();
    await page.getByRole("button", { name: "Compare the two selected runs" }).click();
    await page.waitForFunction(() =>
      (globalThis as unknown as PageGlobals).document.body.dataset["ready"]?.startsWith("#/compare/"),
    );
    expect(await page.locator("#compare-table tbody td:first-child").allInnerTexts()).toEqual([
      "A2ABench/1",
      "A2ABench/2",
      "A2ABench/3",
    ]);
    expect(await page.locator("main, #app").first().innerText()).toContain(
      "3 item(s) with a different verdict, 9 the same",
    );
    const row = await page.locator("#compare-table tbody tr").first().innerText();
    expect(row).toMatch(/failed[\s\S]*passed/);
  });

  test("a trajectory linked from a row renders turn by turn: command, exit code, output with its cut shown, timings, usage", async () => {
    const { page } = await newPage();
    await open(page, `${viewer.base}#/item/interactive%2Ftraj/task-1`);
    const turns = page.locator("ol.turns > li");
    await expect.poll(() => turns.count()).toBe(3);
    const second = await turns.nth(1).innerText();
    expect(second).toContain("Turn 2");
    expect(second).toContain("python3 -m pytest -q");
    expect(second).toMatch(/exit\s+1/);
    expect(second).toContain("took 2.40 s");
    expect(second).toContain("Output truncated (65,536 of 1,048,576 bytes)");
    expect(second).toContain("Self-reported usage: prompt_tokens 900 · completion_tokens 31 · total_tokens 931");
    expect(await turns.nth(2).locator("pre.text").nth(1).innerText()).toBe("<img src=x onerror=alert(1)>\n");
    expect(await page.locator("#app").innerText()).toContain("Fix the failing test in /repo.");
    expect(await page.locator("#app img").count()).toBe(0);
  });

  test("a run still being written: its cut last event line is skipped and the run shows as running", async () => {
    const live = join(root, "humaneval", "live");
    cpSync(join(root, "humaneval", "mixed"), live, { recursive: true });
    rmSync(join(live, "results.json"));
    rmSync(join(live, "run_metadata.json"));
    appendFileSync(join(live, "events.jsonl"), '{"ts":1,"event":"task_fin');
    try {
      const { page } = await newPage();
      await open(page, viewer.base);
      const row = page.locator("#runs-table tbody tr", { hasText: "humaneval/live" });
      expect(await row.innerText()).toContain("running");
      await open(page, `${viewer.base}#/run/humaneval%2Flive`);
      await expect.poll(() => page.locator(".run-head").innerText()).toContain("Rows read from checkpoint.jsonl");
      await expect.poll(() => rowsOf(page, "#items-table").count()).toBe(12);
    } finally {
      rmSync(live, { recursive: true, force: true });
    }
  });

  test("a large run pages its table (the page in the URL), and an item with many completions lists the failing ones first", async () => {
    const large = makeLargeRun(root, 250, 30);
    try {
      const { page } = await newPage();
      await open(page, `${viewer.base}#/run/humaneval%2Flarge`);
      await expect.poll(() => rowsOf(page, "#items-table").count()).toBe(100);
      expect(await page.locator(".page-info").first().innerText()).toBe("1–100 of 250");
      await page.getByRole("button", { name: "Next ›" }).first().click();
      await expect.poll(() => page.locator(".page-info").first().innerText()).toBe("101–200 of 250");
      expect(page.url()).toContain("page=1");
      await page.selectOption('select[name="unit"]', "completions");
      await expect.poll(() => page.locator(".page-info").first().innerText()).toBe("1–100 of 7,500");

      await open(page, `${viewer.base}#/item/humaneval%2Flarge/Large%2F1`);
      expect(await page.locator("#app").innerText()).toContain("24 passed, 6 failed.");
      expect(await page.locator("details.completion").count()).toBe(6); // the 6 not passed
      await page.selectOption('select[name="completions"]', "all");
      await expect.poll(() => page.locator("details.completion").count()).toBe(30);
      await open(page, `${viewer.base}#/item/humaneval%2Flarge/Large%2F1?sample=2`);
      expect(await page.locator("details.completion[open] summary").innerText()).toMatch(/^Completion 2 passed/);
    } finally {
      rmSync(large, { recursive: true, force: true });
    }
  });

  test("--export: one page opened from disk, offline, shows the runs and items, and runs nothing from the data", async () => {
    const file = join(tmp, "export", "runs.html");
    expect(await writeExport([root], file)).toBe(6);
    const html = readFileSync(file, "utf8");
    expect(html).not.toContain(HOSTILE_ANSWER); // inlined only in escaped form
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    const { page } = await newPage(null);
    const url = pathToFileURL(file).toString();
    await open(page, url);
    await expect.poll(() => rowsOf(page, "#runs-table").count()).toBe(6);
    await open(page, `${url}#/item/${MIXED}/A2ABench%2F2`);
    expect(await page.locator("details[open] pre.text").first().innerText()).toBe(HOSTILE_ANSWER);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
    await open(page, `${url}#/run/${MIXED}?status=failed`);
    await expect.poll(() => rowsOf(page, "#items-table").count()).toBe(2);
    await open(page, `${url}#/leaderboard?bench=humaneval`);
    await expect.poll(() => page.locator("#board-table tbody tr.group").count()).toBe(3);
    await open(page, `${url}#/compare/${MIXED}/humaneval%2Fgold`);
    await expect.poll(() => rowsOf(page, "#compare-table").count()).toBe(3);
  });
});
