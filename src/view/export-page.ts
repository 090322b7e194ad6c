/**
 * `a2a-bench view --export FILE.html DIR…`: one self-contained page for a CI
 * artifact. Every API answer the page can ask for (the runs, each run's
 * table, each item, each pair of runs, each trajectory) is computed now and
 * inlined as JSON in a `<script type="application/json">` whose `<`, `>`, `&`
 * and line separators are escaped, so no participant text can close the
 * element. The script and style are inlined too, allowed by their sha256 in
 * the page's Content-Security-Policy (nothing else may run). Raw files are
 * not included; the page names them.
 */
import { createHash } from "node:crypto";
import { writeFileAtomic } from "../util/atomic-write.js";
import { answerApi, type ApiAnswer } from "./view-api.js";
import { loadAssets, type StaticAssets } from "./page.js";

/** Runs whose every pair is precomputed for the compare view, at most. */
export const MAX_EXPORT_COMPARE_RUNS = 8;

/** The key of an API answer in the inlined data: route + query in the page's own parameter order. */
export function dataKey(route: string, params: Array<[string, string]>): string {
  return `${route}?${new URLSearchParams(params).toString()}`;
}

/** JSON safe inside a `<script>` element: no `<`, `>`, `&`, U+2028 or U+2029 left raw. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

const sha256 = (text: string): string => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

type Data = Record<string, ApiAnswer>;

async function put(
  data: Data,
  roots: readonly string[],
  route: string,
  params: Array<[string, string]>,
): Promise<ApiAnswer> {
  const answer = await answerApi(roots, route, new URLSearchParams(params));
  data[dataKey(route, params)] = answer;
  return answer;
}

/** Every answer the exported page can ask for. */
export async function collectExportData(roots: readonly string[]): Promise<Data> {
  const data: Data = {};
  const listed = await put(data, roots, "/api/runs", []);
  const keys = ((listed.body as { runs?: Array<{ key: string }> }).runs ?? []).map((r) => r.key);
  for (const run of keys) {
    await put(data, roots, "/api/run-head", [["run", run]]);
    const answer = await put(data, roots, "/api/run", [["run", run]]);
    const table = (answer.body as { table?: { strings: string[]; items: number[][]; duplicates: string[] } }).table;
    const done = new Set<string>();
    for (const [at, tuple] of (table?.items ?? []).entries()) {
      const id = table!.strings[tuple[0]!];
      if (id === undefined) continue;
      // An id several rows carry: each row by its position (as the page links it), and the first by id alone.
      const params: Array<[string, string]> = [
        ["run", run],
        ["id", id],
      ];
      if (table!.duplicates.includes(id)) {
        if (!done.has(id)) await put(data, roots, "/api/item", params);
        params.push(["at", String(at)]);
      }
      done.add(id);
      const item = await put(data, roots, "/api/item", params);
      const found = (item.body as { item?: { trajectories: Array<{ path: string }> } }).item;
      for (const t of found?.trajectories ?? [])
        await put(data, roots, "/api/trajectory", [
          ["run", run],
          ["path", t.path],
        ]);
    }
  }
  const comparable = keys.slice(0, MAX_EXPORT_COMPARE_RUNS);
  for (const a of comparable)
    for (const b of comparable)
      if (a !== b)
        await put(data, roots, "/api/compare", [
          ["a", a],
          ["b", b],
        ]);
  return data;
}

/** The self-contained page over `data`. */
export function exportHtml(data: Data, assets: StaticAssets = loadAssets()): string {
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(assets.script)}`,
    `style-src ${sha256(assets.style)}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>a2a-bench view (export)</title>
<style>${assets.style}</style>
</head>
<body>
<div id="app"><p class="loading">Loading…</p></div>
<script type="application/json" id="a2a-view-data">${scriptSafeJson(data)}</script>
<script>${assets.script}</script>
</body>
</html>
`;
}

/** Write the export of the runs under `roots` to `file`, atomically. Returns the number of runs. */
export async function writeExport(roots: readonly string[], file: string): Promise<number> {
  const data = await collectExportData(roots);
  await writeFileAtomic(file, exportHtml(data));
  const runs = (data[dataKey("/api/runs", [])]?.body as { runs?: unknown[] } | undefined)?.runs;
  return runs?.length ?? 0;
}
