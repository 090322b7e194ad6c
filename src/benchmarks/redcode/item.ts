/**
 * RedCode-Exec items and their loader. Files: `py2text_dataset_json/
 * index<N>_30_codes_full.json` (Python) and `bash2text_dataset_json/
 * index<N>_30_codes_full_upd.json` (Bash), each a JSON list of
 * `{Index: "<scenario>_<n>", Language, Code, Text_summary, Text_details, expected_result}`.
 * Read at run time from a path; the data (CC BY 4.0) is never bundled.
 */
import { readFile, readdir, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { InputFileError } from "../../util/errors.js";
import { datasetsRoot } from "../../runner/datasets-root.js";
import type { BenchmarkItem } from "../../runner/benchmark.js";

export type RedcodeLanguage = "python" | "bash";

/** The raw record as in the dataset files. */
export interface RedcodeRecord {
  Index: string;
  Language: string;
  Code: string;
  Text_summary: string;
  Text_details: string;
  expected_result: string;
  Prompt?: string;
}

export interface RedcodeItem extends BenchmarkItem {
  /** `<language>/<Index>`, e.g. `python/8_4` (Index alone repeats across languages). */
  id: string;
  scenario: number;
  index: string;
  language: RedcodeLanguage;
  code: string;
  text_summary: string;
  text_details: string;
  expected_result: string;
}

export function toItem(raw: unknown, where: string): RedcodeItem {
  if (typeof raw !== "object" || raw === null) throw new InputFileError(where, "an item must be an object");
  const r = raw as Record<string, unknown>;
  for (const k of ["Index", "Language", "Code", "Text_summary", "Text_details", "expected_result"]) {
    if (typeof r[k] !== "string") throw new InputFileError(where, `missing string field "${k}"`);
  }
  const index = r["Index"] as string;
  const m = /^(\d+)_(\d+)$/.exec(index);
  if (!m) throw new InputFileError(where, `Index "${index}" is not <scenario>_<n>`);
  const lang = (r["Language"] as string).toLowerCase();
  if (lang !== "python" && lang !== "bash")
    throw new InputFileError(where, `unknown Language "${r["Language"] as string}"`);
  return {
    id: `${lang}/${index}`,
    scenario: Number(m[1]),
    index,
    language: lang,
    code: r["Code"] as string,
    text_summary: r["Text_summary"] as string,
    text_details: r["Text_details"] as string,
    expected_result: r["expected_result"] as string,
  };
}

export function parseRecords(text: string, source: string): RedcodeItem[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputFileError(source, `invalid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (!Array.isArray(value)) throw new InputFileError(source, "expected a JSON list of items");
  return value.map((raw, i) => toItem(raw, `${source} [${i}]`));
}

/** Where the full RedCode-Exec set is expected (`<datasets>/redcode/RedCode-Exec`). */
export function fullDatasetDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(datasetsRoot(env), "redcode", "RedCode-Exec");
}

const DATA_SUBDIRS = ["py2text_dataset_json", "bash2text_dataset_json"];

/**
 * Load every item under `path`: a RedCode-Exec directory (with the two
 * `*2text_dataset_json` subdirectories), one of those subdirectories, or a
 * single JSON file. Items are sorted by language, scenario, number.
 */
export async function loadRedcodeDir(path: string): Promise<RedcodeItem[]> {
  const abs = resolve(path);
  let info;
  try {
    info = await stat(abs);
  } catch (err) {
    throw new InputFileError(abs, "no such file or directory (RedCode-Exec directory or JSON file expected)", {
      cause: err,
    });
  }
  const files: string[] = [];
  if (info.isFile()) files.push(abs);
  else {
    const dirs = DATA_SUBDIRS.map((d) => join(abs, d)).filter((d) => existsSync(d));
    for (const d of dirs.length > 0 ? dirs : [abs]) {
      for (const f of (await readdir(d)).sort()) if (f.endsWith(".json")) files.push(join(d, f));
    }
  }
  if (files.length === 0) throw new InputFileError(abs, "no RedCode-Exec JSON files found");
  const items: RedcodeItem[] = [];
  for (const f of files) items.push(...parseRecords(await readFile(f, "utf8"), f));
  return sortItems(items);
}

export function sortItems(items: RedcodeItem[]): RedcodeItem[] {
  const num = (i: RedcodeItem) => Number(i.index.split("_")[1]);
  return [...items].sort((a, b) => a.language.localeCompare(b.language) || a.scenario - b.scenario || num(a) - num(b));
}

/** Apply the `scenarios` / `languages` filters (absent = all). */
export function filterItems(items: RedcodeItem[], scenarios?: number[], languages?: RedcodeLanguage[]): RedcodeItem[] {
  return items.filter(
    (i) => (!scenarios || scenarios.includes(i.scenario)) && (!languages || languages.includes(i.language)),
  );
}
