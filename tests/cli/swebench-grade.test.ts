import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { cliEntry } from "../../src/util/package-root.js";
import { closeMatches, gradeCommand, parseSwebenchArgs } from "../../src/cli/swebench.js";
import { UsageError } from "../../src/util/errors.js";
import { checkAgainst } from "../../src/util/schema.js";
import {
  astropyFixture,
  djangoFixture,
  matplotlibFixture,
  pytestFixture,
  requestsFixture,
  seabornFixture,
  sympyFixture,
} from "../benchmarks/swebench/fixtures/official-logs.js";

function sink(): Writable & { text: string } {
  const w = new Writable({
    write(chunk, _enc, cb) {
      w.text += String(chunk);
      cb();
    },
  }) as Writable & { text: string };
  w.text = "";
  return w;
}

async function grade(...argv: string[]) {
  const stdout = sink();
  const stderr = sink();
  let code: number;
  try {
    code = await gradeCommand(["grade", ...argv], { stdout, stderr, env: {} });
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    stderr.text += err.message;
    code = 2;
  }
  return { code, stdout: stdout.text, stderr: stderr.text };
}

let dir: string;
const fixtures = {
  django: djangoFixture("partial"),
  djangoFull: djangoFixture("full"),
  sympy: sympyFixture(),
  pytest: pytestFixture({ fixed: true }),
  requests: requestsFixture(),
  astropy: astropyFixture(),
  matplotlib: matplotlibFixture(),
  seaborn: seabornFixture(),
};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "swebench-grade-"));
  const instances = [
    fixtures.django,
    fixtures.sympy,
    fixtures.pytest,
    fixtures.requests,
    fixtures.astropy,
    fixtures.matplotlib,
    fixtures.seaborn,
  ].map((f) => f.instance);
  // JSONL, FAIL_TO_PASS as JSON-encoded strings for some (as the published files have them).
  await writeFile(join(dir, "instances.jsonl"), instances.map((i) => JSON.stringify(i)).join("\n") + "\n");
  await writeFile(join(dir, "instances.json"), JSON.stringify(instances, null, 2));
  for (const [name, f] of Object.entries(fixtures)) await writeFile(join(dir, `${name}.txt`), f.log);
  await writeFile(
    join(dir, "preds.json"),
    JSON.stringify({
      "django__django-11111": { instance_id: "django__django-11111", model_name_or_path: "m", model_patch: null },
    }),
  );
  await writeFile(
    join(dir, "preds.jsonl"),
    JSON.stringify({
      instance_id: "pytest-dev__pytest-33333",
      model_name_or_path: "m",
      model_patch: "diff --git a/x b/x\n",
    }) + "\n",
  );
  await writeFile(join(dir, "bad.jsonl"), JSON.stringify(fixtures.django.instance) + '\n{"instance_id": oops}\n');
  await writeFile(join(dir, "bad.json"), '[\n  {"a": 1},\n  {oops}\n]\n');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a2a-bench swebench grade", () => {
  test.each([
    ["django", "django__django-11111", "RESOLVED_PARTIAL", false],
    ["djangoFull", "django__django-11111", "RESOLVED_FULL", true],
    ["sympy", "sympy__sympy-22222", "RESOLVED_NO", false],
    ["pytest", "pytest-dev__pytest-33333", "RESOLVED_FULL", true],
    ["requests", "psf__requests-44444", "RESOLVED_FULL", true],
    ["astropy", "astropy__astropy-55555", "RESOLVED_NO", false],
    ["matplotlib", "matplotlib__matplotlib-66666", "RESOLVED_FULL", true],
    ["seaborn", "mwaskom__seaborn-77777", "RESOLVED_NO", false],
  ] as const)("%s log → %s, the official report.json on stdout", async (name, id, resolution, resolved) => {
    const r = await grade(
      "--dataset",
      join(dir, "instances.jsonl"),
      "--instance-id",
      id,
      "--log",
      join(dir, `${name}.txt`),
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report)).toEqual([id]);
    expect(report[id]).toMatchObject({
      patch_is_None: false,
      patch_exists: true,
      patch_successfully_applied: true,
      resolved,
    });
    expect(checkAgainst("swebench_report.schema.json", report)).toEqual([]);
    expect(r.stderr).toContain(resolution);
  });

  test("a JSON-list dataset, a prediction with a null patch (patch_is_None), a JSONL prediction, and the 4.1.0 rules", async () => {
    const none = await grade(
      "--dataset",
      join(dir, "instances.json"),
      "--instance-id",
      "django__django-11111",
      "--log",
      join(dir, "django.txt"),
      "--prediction",
      join(dir, "preds.json"),
    );
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout)).toEqual({
      "django__django-11111": {
        patch_is_None: true,
        patch_exists: false,
        patch_successfully_applied: false,
        resolved: false,
        infra_failure: false,
      },
    });
    const v4 = await grade(
      "--dataset",
      join(dir, "instances.json"),
      "--instance-id",
      "pytest-dev__pytest-33333",
      "--log",
      join(dir, "pytest.txt"),
      "--prediction",
      join(dir, "preds.jsonl"),
      "--rules",
      "4.1.0",
    );
    expect(v4.code).toBe(0);
    expect(JSON.parse(v4.stdout)["pytest-dev__pytest-33333"]).not.toHaveProperty("infra_failure");
    expect(v4.stderr).toContain("rules 4.1.0");
  });

  test("a voided log: the report says not applied, not resolved", async () => {
    await writeFile(join(dir, "void.txt"), ">>>>> Patch Apply Failed:\nerror: patch failed\n" + fixtures.pytest.log);
    const r = await grade(
      "--dataset",
      join(dir, "instances.jsonl"),
      "--instance-id",
      "pytest-dev__pytest-33333",
      "--log",
      join(dir, "void.txt"),
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)["pytest-dev__pytest-33333"]).toMatchObject({
      patch_successfully_applied: false,
      resolved: false,
    });
    expect(r.stderr).toContain("voiding_marker");
  });

  test("input errors exit 2 with the reason: missing file, bad JSON with its line, unknown id with close matches", async () => {
    const missing = await grade(
      "--dataset",
      join(dir, "nope.jsonl"),
      "--instance-id",
      "x",
      "--log",
      join(dir, "django.txt"),
    );
    expect(missing).toMatchObject({ code: 2, stdout: "" });
    expect(missing.stderr).toMatch(/nope\.jsonl: cannot read/);
    const badLine = await grade(
      "--dataset",
      join(dir, "bad.jsonl"),
      "--instance-id",
      "x",
      "--log",
      join(dir, "django.txt"),
    );
    expect(badLine.code).toBe(2);
    expect(badLine.stderr).toMatch(/line 2: invalid JSON/);
    const badList = await grade(
      "--dataset",
      join(dir, "bad.json"),
      "--instance-id",
      "x",
      "--log",
      join(dir, "django.txt"),
    );
    expect(badList.code).toBe(2);
    expect(badList.stderr).toMatch(/line 3 column 4/);
    const unknown = await grade(
      "--dataset",
      join(dir, "instances.jsonl"),
      "--instance-id",
      "django__django-11112",
      "--log",
      join(dir, "django.txt"),
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no instance "django__django-11112" among 7; close matches: django__django-11111/);
    const noLog = await grade(
      "--dataset",
      join(dir, "instances.jsonl"),
      "--instance-id",
      "django__django-11111",
      "--log",
      join(dir, "none.txt"),
    );
    expect(noLog.code).toBe(2);
    expect(noLog.stderr).toMatch(/none\.txt: cannot read/);
    const noPred = await grade(
      "--dataset",
      join(dir, "instances.jsonl"),
      "--instance-id",
      "sympy__sympy-22222",
      "--log",
      join(dir, "sympy.txt"),
      "--prediction",
      join(dir, "preds.jsonl"),
    );
    expect(noPred.code).toBe(2);
    expect(noPred.stderr).toMatch(/no prediction for "sympy__sympy-22222"/);
  });

  test("the parser is pure and strict", () => {
    expect(parseSwebenchArgs(["grade", "--dataset", "d", "--instance-id", "i", "--log", "l"])).toEqual({
      dataset: "d",
      instanceId: "i",
      log: "l",
      prediction: undefined,
      rules: "5.0.2",
      nonce: undefined,
    });
    expect(() => parseSwebenchArgs(["grade", "--dataset", "d"])).toThrow(/missing --instance-id, --log/);
    expect(() =>
      parseSwebenchArgs(["grade", "--dataset", "d", "--instance-id", "i", "--log", "l", "--rules", "3.0"]),
    ).toThrow(/--rules must be one of/);
    expect(() => parseSwebenchArgs(["grade", "--bogus"])).toThrow(UsageError);
    expect(() => parseSwebenchArgs(["regrade"])).toThrow(/unknown subcommand/);
    expect(closeMatches("astropy-55555", ["astropy__astropy-55555", "django__django-1"])).toEqual([
      "astropy__astropy-55555",
    ]);
  });

  test.skipIf(!existsSync(cliEntry))("built CLI: exit 0 with the report, 2 for usage, --help", () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [cliEntry, "swebench", ...args], { encoding: "utf8" });
    const ok = run(
      "grade",
      "--dataset",
      join(dir, "instances.jsonl"),
      "--instance-id",
      "pytest-dev__pytest-33333",
      "--log",
      join(dir, "pytest.txt"),
    );
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)["pytest-dev__pytest-33333"].resolved).toBe(true);
    expect(run("grade", "--dataset", join(dir, "instances.jsonl")).status).toBe(2);
    expect(run("grade", "--dataset", join(dir, "x.jsonl"), "--instance-id", "a", "--log", "b").status).toBe(2);
    const help = run("--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Usage: a2a-bench swebench grade --dataset FILE --instance-id ID --log FILE/);
  });
});
