/**
 * The viewer attacked in headless chromium through hand-made run directories
 * whose every shown field — directory names (run keys), ids, reasons, failure
 * modes (SVG chart labels), pass@k labels, answers, test output, benchmark,
 * participant, error, isolation warnings, trajectory commands and outputs,
 * file names — is markup meant to run, plus hostile URL hash parameters and
 * search input: nothing runs, no dialog opens, no link leaves the viewer, the
 * text shows literally — served, and in an exported page opened from disk.
 * And a run with two rows of one id shows each row's own verdict.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchChromium, open, startViewer, watchedPage, type PageGlobals, type PageWatch } from "./browser-harness.js";
import { writeExport } from "../../src/view/export-page.js";
import { spawnSync } from "node:child_process";
import { SAMPLE_PROBLEMS } from "../../src/benchmarks/humaneval/sample-dataset.js";
import { cliEntry } from "../../src/util/package-root.js";

/** Markup that would run if any of it were ever parsed as HTML (and flag itself in window.__pwned). */
const X = (n: number) => `<img src=x onerror="window.__pwned=${n};alert(${n})">`;
const SCRIPT = (n: number) => `</script><script>window.__pwned=${n}</script><!--<script>`;
const RUN_DIR = `run ${X(1)}`;
const ID = `id ${X(2)}${SCRIPT(3)}\u2028\u2029`;
const MODE = `<svg><script>window.__pwned=4</script></svg>`;
const TRAJ_FILE = `traj ${X(5)}.jsonl`;

let tmp: string;
let root: string;
let key: string;
let viewer: Awaited<ReturnType<typeof startViewer>>;
let browser: Browser;
const pages: Array<{ page: Page; watch: PageWatch }> = [];

async function newPage(origin: string | null = viewer.base.replace(/\/$/, "")) {
  const p = await watchedPage(browser, origin);
  pages.push(p);
  return p;
}

function writeRun(dir: string, rows: unknown[], extra: Record<string, unknown> = {}): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "results.json"),
    JSON.stringify({
      schema_version: 1,
      benchmark: `bench ${X(6)}`,
      run_id: `</title>${SCRIPT(7)}`,
      status: "ok",
      error: null,
      config: { agent: `javascript:window.__pwned=8//${X(8)}` },
      isolation: { backend: "local", level: `bwrap ${X(9)}`, warnings: [`weak ${X(10)}`] },
      rows,
      aggregate: {
        pass_at_k: { [`pass@1 ${SCRIPT(11)}`]: 0.5 },
        pass_at_k_notes: [X(12)],
        failure_modes: { [MODE]: 1, [X(13)]: 1 },
      },
      ...extra,
    }),
  );
}

/** Every way the page could have been made to run the data or leave the viewer. */
async function assertInert(page: Page): Promise<void> {
  expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
  expect(await page.locator("#app img, #app script, #app iframe, #app svg script").count()).toBe(0);
  const hrefs = await page.locator("#app a").evaluateAll((as) => as.map((a) => a.getAttribute("href") ?? ""));
  for (const href of hrefs) expect(href).toMatch(/^(#\/|\/raw\?)/);
  const onAttrs = await page
    .locator("#app *")
    .evaluateAll((els) => els.flatMap((e) => e.getAttributeNames().filter((n: string) => n.startsWith("on"))));
  expect(onAttrs).toEqual([]);
}

const ready = (page: Page, prefix: string) =>
  page.waitForFunction(
    (p) => (globalThis as unknown as PageGlobals).document.body.dataset["ready"]?.startsWith(p) === true,
    prefix,
  );

/** Python a real completion runs: markup to stdout and stderr, and an exception whose message is markup. */
const PRINTS = [
  "    import sys",
  `    print(${JSON.stringify(SCRIPT(60) + "\u2028")})`,
  `    sys.stderr.write(${JSON.stringify(X(61))})`,
  `    raise ValueError(${JSON.stringify(SCRIPT(62))})`,
  "",
].join("\n");

/** `<root>/humaneval/real`: a real run through the built CLI whose first problem's completion prints markup. */
function realRun(): void {
  const samples = join(tmp, "real-samples.jsonl");
  writeFileSync(
    samples,
    SAMPLE_PROBLEMS.map((p, i) =>
      JSON.stringify({ task_id: p.task_id, completion: i === 0 ? PRINTS : p.canonical_solution }),
    ).join("\n") + "\n",
  );
  const out = join(root, "humaneval", "real");
  const r = spawnSync(
    process.execPath,
    [cliEntry, "run", "humaneval", "--predictions", samples, "--run-id", "real", "--out", out, "--json"],
    { encoding: "utf8", timeout: 60_000, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } },
  );
  if (r.status !== 0) throw new Error(`the real run failed (${r.status}): ${r.stderr}`);
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "a2a-view-attacks-ui-"));
  root = join(tmp, "results");
  const dir = join(root, RUN_DIR);
  key = RUN_DIR;
  mkdirSync(join(dir, "trajectories"), { recursive: true });
  writeFileSync(
    join(dir, "trajectories", TRAJ_FILE),
    [
      { turn: 1, message: X(14), command: `echo '${SCRIPT(15)}'`, exit_code: 0, output: X(16), stderr: SCRIPT(17) },
      { turn: `<b>${X(18)}</b>`, exit_code: X(19), started_at: X(20), usage: { [X(21)]: X(22) }, extra: X(23) },
    ]
      .map((t) => JSON.stringify(t))
      .join("\n") + "\n",
  );
  writeRun(dir, [
    {
      id: ID,
      status: `failed ${X(24)}`,
      passed: false,
      failure_mode: MODE,
      reason: SCRIPT(25),
      prompt: X(26),
      completion: SCRIPT(27),
      test_output: X(28),
      error: X(29),
      elapsed_seconds: 1,
      trajectory: `trajectories/${TRAJ_FILE}`,
      other: { [X(30)]: SCRIPT(31) },
    },
    {
      id: "HumanEval/1",
      status: "failed",
      passed: false,
      n: 2,
      num_correct: 1,
      samples: [
        { status: "passed", completion: X(32), duration_ms: 5 },
        { status: "failed", failure_mode: X(33), reason: SCRIPT(34), completion: X(35), stderr_tail: X(36) },
      ],
    },
  ]);
  writeRun(join(root, `error ${X(37)}`), [], { status: "error", error: { code: X(38), message: SCRIPT(39) } });
  writeRun(join(root, "dup"), [
    { id: "T/0", status: "failed", passed: false, failure_mode: "model_wrong_answer" },
    { id: "T/0", status: "passed", passed: true },
  ]);
  // Files a participant left in a run, written to render and run if a browser ever sniffed them as markup.
  writeFileSync(join(root, "dup", "page.html"), `<!doctype html><html><body>${SCRIPT(50)}${X(51)}</body></html>`);
  writeFileSync(
    join(root, "dup", "chart.svg"),
    `<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=52;alert(52)"><script>alert(53)</script></svg>`,
  );
  writeFileSync(join(root, "dup", "noext"), `<html><script>window.__pwned=54;alert(54)</script></html>`);
  realRun();
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
  for (const { watch } of pages) {
    expect(watch.dialogs).toEqual([]);
    expect(watch.errors).toEqual([]);
    expect(watch.foreign).toEqual([]);
  }
});

describe("a2a-bench view under attack in chromium", () => {
  test("every view over markup-laden runs: the text shows literally, nothing runs, every link stays in the viewer", async () => {
    const { page } = await newPage();
    await open(page, viewer.base);
    const list = await page.locator("#runs-table").innerText();
    expect(list).toContain(RUN_DIR);
    expect(list).toContain(`bench ${X(6)}`);
    expect(list).toContain(`javascript:window.__pwned=8`);
    expect(list).toContain(X(38));
    await assertInert(page);

    await open(page, `${viewer.base}#/run/${encodeURIComponent(key)}`);
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.body.dataset["table"] !== undefined,
    );
    const text = await page.locator("#app").innerText();
    expect(text).toContain(`bwrap ${X(9)}`);
    expect(text).toContain(`weak ${X(10)}`);
    expect(text).toContain(X(12));
    // SVG chart labels are text (cut to 24 characters); their full text is in the bar's <title>.
    const titles = await page.locator("svg.chart title").allTextContents();
    expect(titles.some((t) => t.startsWith(`${MODE}:`))).toBe(true);
    expect(titles.some((t) => t.startsWith(`pass@1 ${SCRIPT(11)}:`))).toBe(true);
    expect(await page.locator("#items-table").innerText()).toContain(SCRIPT(25).slice(0, 40));
    await assertInert(page);

    // The search box and the select boxes fed markup.
    await page.locator('input[name="q"]').fill(X(40));
    await expect.poll(() => page.url()).toContain("q=");
    await page.locator('input[name="q"]').fill("id <img");
    await expect.poll(() => page.locator("#items-table tbody tr").count()).toBe(1);
    await assertInert(page);

    await page.locator("#items-table tbody a").first().click();
    await ready(page, "#/item/");
    const item = await page.locator("#app").innerText();
    for (const t of [
      X(26),
      SCRIPT(27),
      X(28),
      X(29),
      X(14),
      `echo '${SCRIPT(15)}'`,
      X(16),
      SCRIPT(17),
      "window.__pwned=23",
    ])
      expect(item).toContain(t);
    expect(await page.locator("h1").innerText()).toContain(`id ${X(2)}${SCRIPT(3)}`);
    const trajLink = page.getByRole("link", { name: `trajectories/${TRAJ_FILE}` }).first();
    const href = (await trajLink.getAttribute("href"))!;
    const raw = await page.request.get(new URL(href, viewer.base).toString());
    expect(raw.headers()["content-type"]).toBe("text/plain; charset=utf-8");
    await assertInert(page);

    await open(page, `${viewer.base}#/item/${encodeURIComponent(key)}/HumanEval%2F1?sample=1`);
    expect(await page.locator("details[open]").innerText()).toContain(X(36));
    await assertInert(page);
  });

  test("a real run whose completion prints markup and raises with it: the test output shows literally", async () => {
    const { page } = await newPage();
    const first = encodeURIComponent(SAMPLE_PROBLEMS[0]!.task_id);
    await open(page, `${viewer.base}#/item/humaneval%2Freal/${first}`);
    const text = await page.locator("#app").innerText();
    expect(text).toContain(SCRIPT(60));
    expect(text).toContain(X(61));
    expect(text).toContain(SCRIPT(62));
    await assertInert(page);
  });

  test("hostile hash parameters: unknown routes, markup filters and sort keys, a markup sample index", async () => {
    const { page } = await newPage();
    const run = `#/run/${encodeURIComponent(key)}`;
    for (const hash of [
      `#/${encodeURIComponent(X(41))}`,
      `${run}?q=${encodeURIComponent(X(42))}&status=${encodeURIComponent(SCRIPT(43))}&mode=${encodeURIComponent(X(44))}&sort=__proto__&desc=1&page=-5&unit=${encodeURIComponent(X(45))}`,
      `${run}?sort=constructor&page=1e309`,
      `#/item/${encodeURIComponent(key)}/HumanEval%2F1?sample=${encodeURIComponent(X(46))}&at=${encodeURIComponent(X(47))}`,
      `#/item/%E0%A4%A/x`,
      `#/compare/${encodeURIComponent(key)}/${encodeURIComponent(X(48))}`,
    ]) {
      await open(page, `${viewer.base}${hash}`);
      await assertInert(page);
    }
  });

  test("two rows with one id: each row's link opens that row, with its own verdict and a warning", async () => {
    const { page } = await newPage();
    await open(page, `${viewer.base}#/run/dup`);
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.body.dataset["table"] === "dup");
    expect(await page.locator("#table-warnings").innerText()).toContain("T/0");
    await page.locator("#items-table tbody tr").nth(1).locator("a").click();
    await ready(page, "#/item/");
    expect(page.url()).toContain("at=1");
    expect(await page.locator("section.verdict").innerText()).toMatch(/passed\s+true/);
    expect(await page.locator("#item-duplicate").innerText()).toContain("2 rows");
    await page.getByRole("link", { name: "‹ previous item" }).click();
    await expect.poll(() => page.url()).toContain("at=0");
    await expect.poll(() => page.locator("section.verdict").innerText()).toMatch(/passed\s+false/);
  });

  test("raw run files written as HTML or SVG are shown as text when opened in the browser, never run", async () => {
    const { page } = await newPage();
    for (const file of ["page.html", "chart.svg", "noext"]) {
      const response = await page.goto(`${viewer.base}raw?run=dup&path=${file}`);
      expect(response!.headers()["content-type"]).toBe("text/plain; charset=utf-8");
      expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
      expect(await page.locator("script, img, svg").count()).toBe(0);
      expect(await page.locator("body").innerText()).toContain("alert(5");
    }
  });

  test("--export of the same runs: the inlined JSON cannot close its element; opened from disk nothing runs", async () => {
    const file = join(tmp, "export", "runs.html");
    expect(await writeExport([root], file)).toBe(4);
    const html = readFileSync(file, "utf8");
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html.match(/<script/gi)).toHaveLength(2);
    expect(html).not.toContain("<!--");
    expect(html).not.toMatch(/[\u2028\u2029]/);
    const { page } = await newPage(null);
    const url = pathToFileURL(file).toString();
    await open(page, url);
    expect(await page.locator("#runs-table tbody tr").count()).toBe(4);
    await open(page, `${url}#/item/humaneval%2Freal/${encodeURIComponent(SAMPLE_PROBLEMS[0]!.task_id)}`);
    expect(await page.locator("#app").innerText()).toContain(X(61));
    await assertInert(page);
    await assertInert(page);
    await open(page, `${url}#/run/${encodeURIComponent(key)}`);
    await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).document.body.dataset["table"] !== undefined,
    );
    await assertInert(page);
    await open(page, `${url}#/item/${encodeURIComponent(key)}/${encodeURIComponent(ID)}`);
    expect(await page.locator("#app").innerText()).toContain(X(16));
    await assertInert(page);
    await open(page, `${url}#/item/dup/T%2F0?at=1`);
    expect(await page.locator("section.verdict").innerText()).toMatch(/passed\s+true/);
    await open(page, `${url}#/compare/dup/${encodeURIComponent(key)}`);
    expect(await page.locator("#compare-duplicates").innerText()).toContain("T/0");
    await assertInert(page);
  });
});
