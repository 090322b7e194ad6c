/**
 * `a2a-bench run` at weak isolation (a PATH without bubblewrap, so the local
 * sandbox falls back to `unshare`): one visible WARNING line on stderr and a
 * score; with `--require-full-isolation` (what the green agent passes) a
 * refusal with the fix, `status: "error"` and exit 3. Needs `npm run build`.
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { cliEntry } from "../../src/util/package-root.js";

let root: string;
let bin: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "run-isolation-"));
  bin = join(root, "bin");
  // Every program on PATH except bwrap (first one wins, as a shell would find it).
  spawnSync("mkdir", [bin]);
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (name === "bwrap" || existsSync(join(bin, name))) continue;
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  writeFileSync(
    join(root, "preds.jsonl"),
    JSON.stringify({ task_id: "HumanEval/0", completion: "    return False\n" }) + "\n",
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function run(out: string, extra: string[] = []) {
  if (!existsSync(cliEntry)) throw new Error("dist/cli.js missing: run `npm run build` first");
  return spawnSync(
    process.execPath,
    [cliEntry, "run", "humaneval", "--predictions", join(root, "preds.jsonl"), "--out", join(root, out), ...extra],
    {
      env: { ...process.env, PATH: bin, LOG_LEVEL: "error" },
      encoding: "utf8",
      timeout: 60_000,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}

test("a CLI run at weak isolation prints one WARNING line on stderr and still scores", () => {
  const r = run("weak");
  expect(r.status, r.stderr).toBe(0);
  const warnings = r.stderr.split("\n").filter((l) => l.startsWith("WARNING: sandbox isolation is"));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/"unshare".*apt-get install -y bubblewrap/);
  expect(JSON.parse(readFileSync(join(root, "weak", "results.json"), "utf8"))).toMatchObject({
    status: "ok",
    isolation: { level: "unshare" },
  });
});

test("--require-full-isolation refuses at weak isolation: status error with the fix, exit 3, no item run", () => {
  const r = run("strict", ["--require-full-isolation"]);
  expect(r.status).toBe(3);
  // Said once, in the summary line on stdout (a person's); stderr has only the log record.
  expect(r.stdout).toMatch(/status error, no score \[E_ISOLATION_WEAK\].*"unshare".*apt-get install -y bubblewrap/);
  expect(r.stdout).not.toContain("metric");
  const doc = JSON.parse(readFileSync(join(root, "strict", "results.json"), "utf8")) as Record<string, unknown>;
  expect(doc).toMatchObject({ status: "error", error: { code: "E_ISOLATION_WEAK" }, rows: [] });
});
