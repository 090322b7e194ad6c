import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TEST_RUN_ENV, pytestCommand, testSpecFor } from "../../../src/benchmarks/swebench/test-spec.js";
import { parsePytestLog } from "../../../src/benchmarks/swebench/log-parsers.js";

const hasPytest = spawnSync("python3", ["-c", "import pytest"], { stdio: "ignore" }).status === 0;
if (!hasPytest) process.stderr.write("[skip] test-spec.test.ts: python3 cannot import pytest on this host\n");

/**
 * A site-packages stand-in holding one installed pytest plugin, registered
 * through the `pytest11` entry point as pip would, that fails every test it
 * sees: if it is loaded, the grading changes.
 */
async function installFailingPlugin(dir: string): Promise<void> {
  await writeFile(
    join(dir, "failing_host_plugin.py"),
    'def pytest_runtest_call(item):\n    raise AssertionError("host plugin ran")\n',
  );
  const info = join(dir, "failing_host_plugin-1.0.dist-info");
  await mkdir(info);
  await writeFile(join(info, "METADATA"), "Metadata-Version: 2.1\nName: failing-host-plugin\nVersion: 1.0\n");
  await writeFile(join(info, "entry_points.txt"), "[pytest11]\nfailing_host = failing_host_plugin\n");
}

let root: string;
let site: string;
let repo: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "swebench-spec-"));
  site = join(root, "site");
  repo = join(root, "repo");
  await mkdir(site);
  await mkdir(join(repo, "tests"), { recursive: true });
  await installFailingPlugin(site);
  await writeFile(join(repo, "pytest.ini"), "[pytest]\n");
  await writeFile(join(repo, "tests", "test_ok.py"), "def test_ok():\n    assert 1 + 1 == 2\n");
  // The repository's own conftest still applies with autoload off.
  await writeFile(join(repo, "conftest.py"), "import pytest\n\n@pytest.fixture\ndef answer():\n    return 42\n");
  await writeFile(join(repo, "tests", "test_fixture.py"), "def test_uses_conftest(answer):\n    assert answer == 42\n");
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const FILES = ["tests/test_ok.py", "tests/test_fixture.py"];
const unknown = {
  instance_id: "x",
  repo: "nobody/unknown",
  base_commit: "b",
  problem_statement: "p",
  FAIL_TO_PASS: [],
  PASS_TO_PASS: [],
  test_patch: "diff --git a/tests/a b.py b/tests/a b.py\n--- a/tests/a b.py\n+++ b/tests/a b.py\n",
};

/** Run a command and env on the host (trusted fixture), with the stand-in plugin installed. */
function runSpec(command: string, env: Record<string, string> = TEST_RUN_ENV): Record<string, string> {
  const r = spawnSync("bash", ["-c", command], {
    cwd: repo,
    env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: root, PYTHONPATH: site, ...env },
    encoding: "utf8",
    timeout: 30_000,
  });
  return parsePytestLog(`${r.stdout}\n${r.stderr}`);
}

describe("pytest test spec", () => {
  it("is the default for unknown repositories, with a fixed hash seed and no bytecode writes", () => {
    const spec = testSpecFor(unknown);
    expect(spec.framework).toBe("a2a_pytest_verbose");
    expect(spec.env).toMatchObject({ PYTHONHASHSEED: "0", PYTHONDONTWRITEBYTECODE: "1" });
    expect(spec.command).toContain("python3 -m pytest -rA -v");
    expect(spec.requires).toEqual(["pytest"]);
  });

  it.skipIf(!hasPytest)(
    "does not auto-load plugins installed in the Python, but loads the ones a spec names, and the repo's conftest",
    () => {
      expect(runSpec(pytestCommand(FILES))).toEqual({
        "tests/test_ok.py::test_ok": "PASSED",
        "tests/test_fixture.py::test_uses_conftest": "PASSED",
      });
      // Named explicitly, the same installed plugin is loaded (and fails every test).
      expect(runSpec(pytestCommand(FILES, ["failing_host"]))).toEqual({
        "tests/test_ok.py::test_ok": "FAILED",
        "tests/test_fixture.py::test_uses_conftest": "FAILED",
      });
    },
  );

  it.skipIf(!hasPytest)(
    "with autoload on, the stand-in plugin would change the verdicts (the fixture is not vacuous)",
    () => {
      expect(Object.values(runSpec(pytestCommand(FILES), { PYTHONHASHSEED: "0" }))).toEqual(["FAILED", "FAILED"]);
    },
  );
});
