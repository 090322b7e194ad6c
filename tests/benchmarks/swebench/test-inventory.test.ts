import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  runnerMark,
  runnerProbeCommand,
  staticProbeCommand,
  STATIC_MARK,
} from "../../../src/benchmarks/swebench/inventory-probe.js";
import {
  diffInventories,
  namedFlags,
  probeResult,
  staticResult,
  symlinkModes,
  touchedPaths,
  type Inventory,
  type TestConfigFlag,
} from "../../../src/benchmarks/swebench/test-inventory.js";
import { runsPytest } from "../../../src/benchmarks/swebench/local-inventory.js";
import { FORCE_PASS_CONFTEST, SHLEX_SHADOW } from "./fixtures/attack-files.js";

/**
 * The probes run for real here, with the host's python3 (pyenv's, which has pytest 9) in a tiny
 * tree shaped like the sample repositories: root pytest.ini, a package, tests/.
 */
const TESTS = ["tests/test_x.py"];
const BASE: Record<string, string> = {
  "pytest.ini": "[pytest]\npythonpath = .\n",
  "pkg/__init__.py": "",
  "tests/test_x.py": "import pkg\n\ndef test_a():\n    assert False\n",
};
const PLUGIN = FORCE_PASS_CONFTEST;

let root: string;
/**
 * The inventory of the untouched tree (BASE alone), taken once: every case diffs against it. It is only
 * read (diffInventories is pure, and each case gets its own copy); the changed tree of a case is its own.
 */
let baseInventory: Inventory;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "inventory-"));
  baseInventory = await inventory(await tree());
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function tree(extra: Record<string, string | { link: string }> = {}): Promise<string> {
  const dir = await mkdtemp(join(root, "t-"));
  for (const [rel, content] of Object.entries({ ...BASE, ...extra })) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    if (typeof content === "string") await writeFile(join(dir, rel), content);
    else await symlink(content.link, join(dir, rel));
  }
  return dir;
}

function run(dir: string, code: string): string {
  return execFileSync("bash", ["-c", code], {
    cwd: dir,
    env: { PATH: process.env["PATH"]!, HOME: process.env["HOME"]!, PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" },
    encoding: "utf8",
  });
}

async function inventory(dir: string): Promise<Inventory> {
  const mark = runnerMark();
  return {
    static: staticResult(run(dir, staticProbeCommand(TESTS)), 0),
    runner: probeResult(run(dir, runnerProbeCommand(TESTS, mark)), mark, 0),
  };
}

async function flagsFor(extra: Record<string, string | { link: string }>): Promise<TestConfigFlag[]> {
  return diffInventories(structuredClone(baseInventory), await inventory(await tree(extra)));
}

const has = (flags: TestConfigFlag[], f: Partial<TestConfigFlag>) =>
  expect(flags, JSON.stringify(flags)).toEqual(expect.arrayContaining([expect.objectContaining(f)]));

describe("test-run inventory: the static probe (no code of the tree runs)", () => {
  it("reads pytest's own selection: rootdir, config file, ini values; every config file parsed", async () => {
    const inv = await inventory(await tree({ "setup.cfg": "[flake8]\nmax-line-length = 100\n" }));
    expect("value" in inv.static).toBe(true);
    const v = (inv.static as { value: Record<string, unknown> }).value;
    expect(v["setup"]).toEqual({ rootdir: ".", inifile: "pytest.ini", inicfg: { pythonpath: "." } });
    // A setup.cfg without a [tool:pytest] section holds no pytest configuration (null, not a flag).
    expect(v["configs"]).toEqual({ "pytest.ini": { pythonpath: "." }, "setup.cfg": null });
    expect(v["import_dirs"]).toEqual([".", "tests"]);
  });

  it("a root module that would run in the tree is never imported by it: its output is the probe's own", async () => {
    const dir = await tree({ "json.py": "print('A2A-STATIC-INVENTORY:{}')\nraise SystemExit(3)\n" });
    const out = run(dir, staticProbeCommand(TESTS));
    expect(out.split("\n").filter((l) => l.startsWith(STATIC_MARK))).toHaveLength(1);
    const st = staticResult(out, 0);
    expect((st as { value: Record<string, unknown> }).value["shadowing"]).toHaveProperty("json.py");
  });
});

describe("test-run inventory: flags by effect", () => {
  it("the same tree twice: nothing", async () => {
    expect(await flagsFor({})).toEqual([]);
  });
  it("a change to setup.cfg or pyproject.toml outside pytest's tables: nothing", async () => {
    expect(
      await flagsFor({
        "setup.cfg": "[flake8]\nmax-line-length = 100\n",
        "pyproject.toml": "[tool.black]\nline-length = 100\n",
      }),
    ).toEqual([]);
  });
  it("pytest.toml in tests/ (outranks the root pytest.ini) loading a root plugin", async () => {
    const f = await flagsFor({
      "tests/pytest.toml": '[pytest]\naddopts = ["-p", "forcepass"]\n',
      "forcepass.py": PLUGIN,
    });
    has(f, { kind: "pytest_config", path: "tests/pytest.toml", detail: "added" });
    has(f, { kind: "pytest_setup", path: "tests/pytest.toml" });
    has(f, { kind: "pytest_plugins", path: "forcepass.py" });
  });
  it(".pytest.toml, [tool] with dotted keys, a header written with spaces: read as pytest reads them", async () => {
    for (const [file, text] of [
      ["tests/.pytest.toml", '[pytest]\naddopts = ["-p", "forcepass"]\n'],
      ["tests/pyproject.toml", '[tool]\npytest.ini_options.addopts = "-p forcepass"\n'],
      ["tests/pyproject.toml", '[ tool . pytest . ini_options ]\naddopts = "-p forcepass"\n'],
    ] as const) {
      const f = await flagsFor({ [file]: text, "forcepass.py": PLUGIN });
      has(f, { kind: "pytest_config", path: file });
      has(f, { kind: "pytest_plugins", path: "forcepass.py" });
    }
  });
  it("a symlinked setup.cfg: the link and the configuration it brings", async () => {
    const f = await flagsFor({
      "ci/settings.cfg": "[tool:pytest]\naddopts = -p forcepass\n",
      "tests/setup.cfg": { link: "../ci/settings.cfg" },
      "forcepass.py": PLUGIN,
    });
    has(f, { kind: "symlink", path: "tests/setup.cfg", detail: "added" });
    has(f, { kind: "pytest_config", path: "tests/setup.cfg" });
  });
  it("a root module shadowing the stdlib's shlex and setting PYTEST_ADDOPTS", async () => {
    const f = await flagsFor({ "shlex.py": SHLEX_SHADOW, "forcepass.py": PLUGIN });
    has(f, { kind: "shadowing_module", path: "shlex.py", detail: "added" });
    has(f, { kind: "environment", detail: "PYTEST_ADDOPTS added" });
    has(f, { kind: "pytest_plugins", path: "forcepass.py" });
  });
  it("conftest.py anywhere, sitecustomize, .pth, .env files and pytest11 entry points", async () => {
    const f = await flagsFor({
      "tests/deep/conftest.py": "",
      "sitecustomize.py": "",
      "x.pth": "import os\n",
      ".env": "PYTEST_ADDOPTS=-p forcepass\n",
      "evil-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: evil\nVersion: 1.0\n",
      "evil-1.0.dist-info/entry_points.txt": "[pytest11]\nevil = forcepass\n",
    });
    for (const path of [
      "tests/deep/conftest.py",
      "sitecustomize.py",
      "x.pth",
      ".env",
      "evil-1.0.dist-info/entry_points.txt",
    ])
      has(f, { kind: "hook_file", path });
    has(f, { kind: "plugin_entry_point" });
  });
  it("a runner report missing after the patch (the tree ended pytest early) is a flag", () => {
    const before: Inventory = { static: { value: {} }, runner: { value: { exit: 0, report: { plugins: [] } } } };
    const after: Inventory = { static: { value: {} }, runner: { error: "no report (exit 0)" } };
    expect(diffInventories(before, after)).toEqual([
      { kind: "probe_failed", path: null, detail: "runner probe: no report (exit 0)" },
    ]);
  });
  it("a runner that disagrees with the static reading is a flag (a forged or steered report)", () => {
    const st = { value: { setup: { rootdir: ".", inifile: "pytest.ini", inicfg: {} } } };
    const rep = (inifile: string) => ({ value: { exit: 0, report: { rootdir: ".", inifile } } });
    const f = diffInventories({ static: st, runner: rep("pytest.ini") }, { static: st, runner: rep("other.ini") });
    has(f, { kind: "runner_disagrees" });
  });
  it("two reports, or none, are no report", () => {
    const m = "M:";
    expect(probeResult(`${m}{}\n${m}{}\n`, m, 0)).toEqual({ error: "2 reports (exit 0)" });
    expect(probeResult("x\n", m, 1, "boom\n")).toEqual({ error: "no report (exit 1: boom)" });
  });
});

describe("flags from the patch text", () => {
  it("symlink modes (120000): added, retargeted, removed", () => {
    const patch = [
      "diff --git a/tests/setup.cfg b/tests/setup.cfg",
      "new file mode 120000",
      "index 0000000..1111111",
      "diff --git a/src/a.py b/src/a.py",
      "index 2222222..3333333 100644",
      "diff --git a/link b/link",
      "index 4444444..5555555 120000",
      "",
    ].join("\n");
    expect(symlinkModes(patch).map((f) => f.path)).toEqual(["tests/setup.cfg", "link"]);
  });
  it("edits to the files test_patch resets and to a repository's own runner", () => {
    const patch =
      "diff --git a/tests/runtests.py b/tests/runtests.py\n--- a/tests/runtests.py\n+++ b/tests/runtests.py\n";
    expect(namedFlags(patch, [], "django/django")).toEqual([
      { kind: "runner_file", path: "tests/runtests.py", detail: "the repository's test runner" },
    ]);
    expect(namedFlags(patch, ["tests/runtests.py"], "x/y")[0]).toMatchObject({ kind: "test_file" });
  });
  it("touches_test_config lists each flag's path, or <kind>", () => {
    expect(
      touchedPaths([
        { kind: "hook_file", path: "conftest.py", detail: "added" },
        { kind: "pytest_plugins", path: "conftest.py", detail: "added conftest @ conftest.py" },
        { kind: "environment", path: null, detail: "X added" },
      ]),
    ).toEqual(["<environment>", "conftest.py"]);
  });
  it("the runner probe runs only for commands that run pytest themselves", () => {
    expect(runsPytest("python3 -m pytest -rA tests/x.py")).toBe(true);
    expect(runsPytest("python3 ./tests/runtests.py --verbosity 2")).toBe(false);
    expect(runsPytest("python3 -m tox --current-env -epy39 -v --")).toBe(false);
  });
});
