/**
 * SWE-bench task instances in SWE-bench's own format, read from a JSON list or
 * JSONL file. FAIL_TO_PASS / PASS_TO_PASS are JSON-encoded strings in the
 * published data files and plain lists elsewhere; both are accepted.
 */
import { readFile } from "node:fs/promises";
import { InputFileError } from "../../util/errors.js";
import type { BenchmarkItem } from "../../runner/benchmark.js";

/** One SWE-bench task instance (fields we read; others are kept but unused). */
export interface SwebenchInstance {
  instance_id: string;
  /** `owner/name` on GitHub. */
  repo: string;
  base_commit: string;
  problem_statement: string;
  hints_text?: string;
  /** The gold patch (source changes only). */
  patch?: string;
  /** Patch adding/changing the tests that decide the instance. */
  test_patch: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  version?: string;
  environment_setup_commit?: string;
  /** SWE-bench 5.x datasets: the official parser's name (e.g. `parse_log_django`); wins over the repository table. */
  log_parser?: string;
  /** SWE-bench 5.x datasets: the official eval.sh of the instance (kept for container back-ends; not run locally). */
  eval_script?: string;
}

/** The runner's item: the instance, keyed by its id. */
export interface SwebenchItem extends BenchmarkItem {
  instance: SwebenchInstance;
}

/** A JSON.parse error message with the line and column of its position, when it names one. */
export function jsonErrorWhere(text: string, err: Error): string {
  const m = /at position (\d+)/.exec(err.message);
  if (!m) return err.message;
  const before = text.slice(0, Number(m[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `line ${line} column ${column}: ${err.message}`;
}

/** Parse a JSON list or JSONL text into records (one error names the line). */
export function parseJsonRecords(text: string, source: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  if (trimmed.startsWith("[")) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new InputFileError(source, `not a JSON list: ${jsonErrorWhere(text, err as Error)}`, { cause: err });
    }
    if (!Array.isArray(value)) throw new InputFileError(source, "not a JSON list");
    return value;
  }
  const out: unknown[] = [];
  const lines = trimmed.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    try {
      out.push(JSON.parse(line));
    } catch (err) {
      throw new InputFileError(source, `line ${i + 1}: invalid JSON (${(err as Error).message})`, { cause: err });
    }
  }
  return out;
}

/** A test-id list given as a list or as a JSON-encoded string of a list. */
export function normaliseTestList(value: unknown, field: string, where: string): string[] {
  let v = value;
  if (v === undefined || v === null || v === "") return [];
  if (typeof v === "string") {
    try {
      v = JSON.parse(v);
    } catch {
      throw new InputFileError(where, `${field} is a string but not a JSON-encoded list`);
    }
  }
  if (!Array.isArray(v) || !v.every((t) => typeof t === "string")) {
    throw new InputFileError(where, `${field} must be a list of test ids (or its JSON encoding)`);
  }
  return v;
}

function requireString(rec: Record<string, unknown>, key: string, where: string): string {
  const v = rec[key];
  if (typeof v !== "string" || v === "") throw new InputFileError(where, `missing or empty string field "${key}"`);
  return v;
}

function optionalString(rec: Record<string, unknown>, key: string): string | undefined {
  const v = rec[key];
  return typeof v === "string" ? v : undefined;
}

/** Validate and normalise one raw record; `where` names it in errors. */
export function toInstance(raw: unknown, where: string): SwebenchInstance {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new InputFileError(where, "an instance must be a JSON object");
  }
  const rec = raw as Record<string, unknown>;
  const inst: SwebenchInstance = {
    instance_id: requireString(rec, "instance_id", where),
    repo: requireString(rec, "repo", where),
    base_commit: requireString(rec, "base_commit", where),
    problem_statement: requireString(rec, "problem_statement", where),
    test_patch: requireString(rec, "test_patch", where),
    FAIL_TO_PASS: normaliseTestList(rec["FAIL_TO_PASS"], "FAIL_TO_PASS", where),
    PASS_TO_PASS: normaliseTestList(rec["PASS_TO_PASS"], "PASS_TO_PASS", where),
  };
  if (rec["version"] !== undefined && rec["version"] !== null && typeof rec["version"] !== "string") {
    throw new InputFileError(
      where,
      `version must be a string (SWE-bench's files write e.g. "3.0"), not ${JSON.stringify(rec["version"])}`,
    );
  }
  if (!/^[\w.-]+\/[\w.-]+$/.test(inst.repo)) throw new InputFileError(where, `repo "${inst.repo}" is not owner/name`);
  for (const key of [
    "hints_text",
    "patch",
    "version",
    "environment_setup_commit",
    "log_parser",
    "eval_script",
  ] as const) {
    const v = optionalString(rec, key);
    if (v !== undefined) inst[key] = v;
  }
  return inst;
}

/** Parse an instance file's text (JSON list or JSONL); duplicate ids are an error. */
export function parseInstances(text: string, source: string): SwebenchInstance[] {
  const records = parseJsonRecords(text, source);
  const seen = new Set<string>();
  return records.map((raw, i) => {
    const inst = toInstance(raw, `${source} [${i}]`);
    if (seen.has(inst.instance_id)) throw new InputFileError(source, `duplicate instance_id "${inst.instance_id}"`);
    seen.add(inst.instance_id);
    return inst;
  });
}

/** Read and parse an instance file. */
export async function loadInstanceFile(path: string): Promise<SwebenchInstance[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new InputFileError(path, `cannot read: ${(err as Error).message}`, { cause: err });
  }
  return parseInstances(text, path);
}
