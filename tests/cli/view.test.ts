/**
 * `a2a-bench view` through the built CLI: it prints its URL and serves until
 * SIGTERM, opens nothing itself, refuses bad usage with exit 2, and
 * `--export` writes one page atomically.
 */
import { describe, expect, test } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliEntry } from "../../src/util/package-root.js";
import { scriptSafeJson } from "../../src/view/export-page.js";

function runsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "a2a-view-cli-"));
  const run = join(dir, "results", "humaneval", "r1");
  mkdirSync(run, { recursive: true });
  writeFileSync(
    join(run, "events.jsonl"),
    JSON.stringify({ ts: 1, event: "task_finished", task_id: "T/</script><script>alert(1)</script>", passed: false }) +
      "\n",
  );
  return dir;
}

describe("a2a-bench view (built CLI)", () => {
  test("serves on the port asked (0: any), prints the URL, answers, and stops on SIGTERM with exit 0", async () => {
    const dir = runsDir();
    const child = spawn(process.execPath, [cliEntry, "view", "--port", "0"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 20_000);
        child.stdout.setEncoding("utf8").on("data", (s: string) => {
          out += s;
          const m = /http:\/\/127\.0\.0\.1:\d+\//.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[0]);
          }
        });
      });
      const runs = (await (await fetch(`${url}api/runs`)).json()) as { runs: Array<{ key: string }> };
      expect(runs.runs.map((r) => r.key)).toEqual(["humaneval/r1"]);
      const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test.each([
    [["view", "--port", "99999"], "--port must be an integer from 0 to 65535"],
    [["view", "no-such-dir"], "no-such-dir is not a directory"],
    [["view", "--bogus"], "unknown option --bogus"],
  ])("%j is a usage error (exit 2)", (args, message) => {
    const r = spawnSync(process.execPath, [cliEntry, ...args], { encoding: "utf8", timeout: 20_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
  });

  test("--export writes one self-contained page (no temp file left), data escaped inside its script element", () => {
    const dir = runsDir();
    try {
      const file = join(dir, "out", "view.html");
      const r = spawnSync(process.execPath, [cliEntry, "view", "--export", file, join(dir, "results")], {
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`wrote ${file} (1 run)\n`);
      const html = readFileSync(file, "utf8");
      expect(readdirSync(join(dir, "out"))).toEqual(["view.html"]);
      expect(html).toContain('<script type="application/json" id="a2a-view-data">');
      expect(html).toContain("T/\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e");
      expect(html.match(/<\/script>/g)).toHaveLength(2);
      expect(html).toMatch(
        /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-/,
      );
      expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="http/);
      expect(existsSync(`${file}.tmp`)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("scriptSafeJson", () => {
  test("leaves no character that could end the script element or a line, and parses back to the same value", () => {
    const value = { s: "</script><!-- & \u2028 \u2029 >" };
    const text = scriptSafeJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});
