/**
 * Flagging a model patch by what it changes in how the tests run, not by the
 * names of the files it touches: the inventory of the tree at the base commit
 * (with test_patch applied, as grading runs it) is compared with the
 * inventory after the model patch (inventory-probe.ts says what each probe
 * reads and why the static one cannot be forged), and ANY difference is a
 * flag. The patch text adds what no tree listing shows: symlink modes
 * (120000) and edits to the files test_patch resets or to a repository's own
 * test runner.
 *
 * A flag never changes the official verdict (`resolved`); it makes
 * `resolved_strict` false, and with `--strict-tests` the row's status.
 */
import { patchTargets, RUNNER_FILES } from "./test-config.js";
import { readProbeLine, STATIC_MARK } from "./inventory-probe.js";

/** What a flag says changed. */
export type TestConfigFlagKind =
  /** The patch edits a file test_patch resets (its edit is undone, but it shows intent). */
  | "test_file"
  /** The patch edits the repository's own test runner (django's runtests.py, sympy's bin/test). */
  | "runner_file"
  /** pytest's rootdir, config file or effective ini values for the test arguments changed. */
  | "pytest_setup"
  /** The parsed pytest configuration of a config file anywhere in the tree changed. */
  | "pytest_config"
  /** A symlink was added, removed or retargeted (tree listing or a 120000 mode in the patch). */
  | "symlink"
  /** A file that runs or sets environment when Python/pytest starts was added, removed or changed. */
  | "hook_file"
  /** A module named like a stdlib or test-runner module, where the test run imports from, was added or changed. */
  | "shadowing_module"
  /** The `pytest11` entry points visible to the test run changed. */
  | "plugin_entry_point"
  /** Runner probe: the plugins pytest loaded changed. */
  | "pytest_plugins"
  /** Runner probe: the conftest files pytest loaded changed. */
  | "pytest_conftests"
  /** Runner probe: addopts, PYTEST_ADDOPTS, arguments or resolved options changed. */
  | "pytest_options"
  /** Runner probe: the environment changed while pytest started. */
  | "environment"
  /** Runner probe: pytest's rootdir/config file disagree with the static probe's reading. */
  | "runner_disagrees"
  /** A probe answered before the patch and not (or differently broken) after it. */
  | "probe_failed";

export interface TestConfigFlag {
  kind: TestConfigFlagKind;
  /** The repository path concerned, when there is one. */
  path: string | null;
  detail: string;
}

/** One probe's answer: its JSON, or why there is none. */
export type ProbeResult = { value: Record<string, unknown> } | { error: string };

/** Both probes' answers for one tree state (`runner` null: not a pytest repository, not run). */
export interface Inventory {
  static: ProbeResult;
  runner: ProbeResult | null;
}

/** Parse a probe's stdout (and its exit status) into a {@link ProbeResult}. */
export function probeResult(stdout: string, mark: string, exitCode: number | null, stderr = ""): ProbeResult {
  const line = readProbeLine(stdout, mark);
  if ("error" in line) {
    const tail = stderr.trim().split("\n").slice(-2).join(" | ").slice(0, 300);
    return { error: `${line.error} (exit ${exitCode ?? "none"}${tail ? `: ${tail}` : ""})` };
  }
  const v = line.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { error: "report is not an object" };
  return { value: v as Record<string, unknown> };
}

/** Parse the static probe's stdout. */
export function staticResult(stdout: string, exitCode: number | null, stderr = ""): ProbeResult {
  return probeResult(stdout, STATIC_MARK, exitCode, stderr);
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function record(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function list(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/** One flag per key whose value differs (a missing key and null count alike: "no pytest configuration"). */
function mapDiff(kind: TestConfigFlagKind, before: unknown, after: unknown, asPath = true): TestConfigFlag[] {
  const a = record(before);
  const b = record(after);
  const flags: TestConfigFlag[] = [];
  for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const x = a[key] ?? null;
    const y = b[key] ?? null;
    if (same(x, y)) continue;
    const detail = x === null ? "added" : y === null ? "removed" : "changed";
    flags.push({ kind, path: asPath ? key : null, detail: asPath ? detail : `${key} ${detail}` });
  }
  return flags;
}

/** The repository path in a `name @ path` entry, if any. */
function pathOf(entry: string): string | null {
  const at = entry.lastIndexOf(" @ ");
  return at < 0 ? null : entry.slice(at + 3);
}

/** One flag per entry added to or removed from a list. */
function listDiff(kind: TestConfigFlagKind, before: unknown, after: unknown, entryIsPath = false): TestConfigFlag[] {
  const a = new Set(list(before));
  const b = new Set(list(after));
  const flags: TestConfigFlag[] = [];
  for (const e of [...b].filter((x) => !a.has(x)).sort())
    flags.push({ kind, path: entryIsPath ? e : pathOf(e), detail: `added ${e}` });
  for (const e of [...a].filter((x) => !b.has(x)).sort())
    flags.push({ kind, path: entryIsPath ? e : pathOf(e), detail: `removed ${e}` });
  return flags;
}

function errorDiff(which: string, before: ProbeResult, after: ProbeResult): TestConfigFlag[] {
  const eb = "error" in before ? before.error : null;
  const ea = "error" in after ? after.error : null;
  if (ea === null || ea === eb) return [];
  return [{ kind: "probe_failed", path: null, detail: `${which} probe: ${ea}` }];
}

function staticDiff(before: Record<string, unknown>, after: Record<string, unknown>): TestConfigFlag[] {
  const flags: TestConfigFlag[] = [];
  const sb = record(before["setup"]);
  const sa = record(after["setup"]);
  if (!same(sb, sa)) {
    const path = (sa["inifile"] ?? sb["inifile"] ?? null) as string | null;
    const what = ["rootdir", "inifile", "inicfg", "error"].filter((k) => !same(sb[k], sa[k]));
    flags.push({ kind: "pytest_setup", path, detail: `${what.join(", ")} changed` });
  }
  flags.push(...mapDiff("pytest_config", before["configs"], after["configs"]));
  flags.push(...mapDiff("symlink", before["links"], after["links"]));
  flags.push(...mapDiff("hook_file", before["hooks"], after["hooks"]));
  flags.push(...mapDiff("shadowing_module", before["shadowing"], after["shadowing"]));
  flags.push(...mapDiff("plugin_entry_point", before["entry_points"], after["entry_points"], false));
  return flags;
}

function runnerReport(r: ProbeResult): Record<string, unknown> | null {
  if ("error" in r) return null;
  const rep = r.value["report"];
  return typeof rep === "object" && rep !== null ? (rep as Record<string, unknown>) : null;
}

function runnerDiff(before: Record<string, unknown>, after: Record<string, unknown>): TestConfigFlag[] {
  const flags: TestConfigFlag[] = [];
  for (const key of ["rootdir", "inifile"])
    if (!same(before[key], after[key]))
      flags.push({
        kind: "pytest_setup",
        path: (after["inifile"] ?? null) as string | null,
        detail: `runner ${key} changed`,
      });
  flags.push(...listDiff("pytest_plugins", before["plugins"], after["plugins"]));
  flags.push(...listDiff("pytest_conftests", before["conftests"], after["conftests"], true));
  for (const key of ["addopts", "pytest_addopts_env", "args"])
    if (!same(before[key], after[key])) flags.push({ kind: "pytest_options", path: null, detail: `${key} changed` });
  flags.push(...mapDiff("pytest_options", before["options"], after["options"], false));
  flags.push(...mapDiff("environment", before["env_changes"], after["env_changes"], false));
  flags.push(...listDiff("shadowing_module", before["shadowed"], after["shadowed"]));
  return flags;
}

/** Does the runner's rootdir/config file disagree with the static reading? ("" when it agrees). */
function disagreement(st: ProbeResult, runner: Record<string, unknown> | null): string {
  if ("error" in st || runner === null) return "";
  const setup = record(st.value["setup"]);
  if (!("rootdir" in setup)) return "";
  const parts = ["rootdir", "inifile"].filter((k) => !same(setup[k], runner[k]));
  return parts.map((k) => `${k} ${JSON.stringify(runner[k])} vs ${JSON.stringify(setup[k])}`).join("; ");
}

/** Every difference between the inventories before and after the model patch. */
export function diffInventories(before: Inventory, after: Inventory): TestConfigFlag[] {
  const flags = errorDiff("static", before.static, after.static);
  if (!("error" in before.static) && !("error" in after.static))
    flags.push(...staticDiff(before.static.value, after.static.value));
  if (before.runner !== null && after.runner !== null) {
    const rb = runnerReport(before.runner);
    const ra = runnerReport(after.runner);
    if (ra === null && rb !== null)
      flags.push({
        kind: "probe_failed",
        path: null,
        detail: `runner probe: ${"error" in after.runner ? after.runner.error : "the session never finished"}`,
      });
    if (rb !== null && ra !== null) flags.push(...runnerDiff(rb, ra));
    const da = disagreement(after.static, ra);
    if (da !== "" && da !== disagreement(before.static, rb))
      flags.push({ kind: "runner_disagrees", path: null, detail: da });
  }
  return flags;
}

/** Paths the patch gives (or takes) the symlink mode 120000. */
export function symlinkModes(patch: string): TestConfigFlag[] {
  const flags: TestConfigFlag[] = [];
  let current: string | null = null;
  for (const raw of patch.split("\n")) {
    const line = raw.replace(/\r$/, "");
    const header = /^diff --git (?:"?a\/.*?"?) "?b\/(.*?)"?$/.exec(line);
    if (header) {
      current = header[1]!;
      continue;
    }
    if (current === null) continue;
    if (
      /^(?:new file mode|deleted file mode|old mode|new mode) 120000$/.test(line) ||
      /^index \S+ 120000$/.test(line)
    ) {
      if (!flags.some((f) => f.path === current))
        flags.push({ kind: "symlink", path: current, detail: "symlink mode (120000) in the patch" });
    }
  }
  return flags;
}

/** Edits to the files test_patch resets and to the repository's own test runner (read from the patch). */
export function namedFlags(patch: string, testFiles: readonly string[], repo: string): TestConfigFlag[] {
  const runner = RUNNER_FILES[repo] ?? [];
  const flags: TestConfigFlag[] = [];
  for (const path of patchTargets(patch)) {
    if (testFiles.includes(path)) flags.push({ kind: "test_file", path, detail: "a file test_patch resets" });
    else if (runner.includes(path)) flags.push({ kind: "runner_file", path, detail: "the repository's test runner" });
  }
  return flags;
}

/** Flags without repeats (same kind, path and detail), in a stable order. */
export function uniqueFlags(flags: readonly TestConfigFlag[]): TestConfigFlag[] {
  const seen = new Set<string>();
  const out: TestConfigFlag[] = [];
  for (const f of flags) {
    const key = `${f.kind}\0${f.path ?? ""}\0${f.detail}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
  }
  return out;
}

/** The row's `touches_test_config`: each flag's path, or `<kind>` when it has none; sorted, unique. */
export function touchedPaths(flags: readonly TestConfigFlag[]): string[] {
  return [...new Set(flags.map((f) => f.path ?? `<${f.kind}>`))].sort();
}
