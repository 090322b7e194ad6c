/**
 * A results.json too large for the viewer's heap, through the built CLI with
 * a small heap (--max-old-space-size=200): parsing it would abort the whole
 * process (V8 kills it when the heap is full); the viewer refuses the file
 * with a message naming the limit and keeps serving.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { get } from "node:http";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliEntry } from "../../src/util/package-root.js";
import { jsonByteLimit, JSON_HEAP_FACTOR, MAX_JSON_BYTES } from "../../src/view/run-files.js";

let tmp: string;
let child: ChildProcess;
let base: string;

function fetchJson(
  path: string,
): Promise<{ status: number; body: { error?: string; runs?: Array<{ status: string }> } }> {
  return new Promise((resolve, reject) => {
    const req = get(`${base}${path}`, { timeout: 30_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
    });
    req.on("timeout", () => req.destroy(new Error(`${path}: no answer`)));
    req.on("error", reject);
  });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "a2a-view-heap-"));
  const run = join(tmp, "results", "humaneval", "big");
  mkdirSync(run, { recursive: true });
  // About 100 MB: two million small rows.
  const rows = Array.from({ length: 2_000_000 }, (_, i) => `{"id":"T/${i}","status":"failed","passed":false}`);
  writeFileSync(join(run, "results.json"), `{"status":"ok","rows":[${rows.join(",")}],"aggregate":{}}`);
  child = spawn(process.execPath, ["--max-old-space-size=200", cliEntry, "view", "--port", "0", "results"], {
    cwd: tmp,
    stdio: ["ignore", "pipe", "pipe"],
  });
  base = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 20_000);
    child.stdout!.setEncoding("utf8").on("data", (s: string) => {
      out += s;
      const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
  });
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  rmSync(tmp, { recursive: true, force: true });
});

describe("a results file larger than the viewer's heap allows", () => {
  test("the limit is a sixth of the heap, at most 512 MiB", () => {
    expect(JSON_HEAP_FACTOR).toBe(6);
    expect(jsonByteLimit(600 * 1024 ** 2)).toBe(100 * 1024 ** 2);
    expect(jsonByteLimit(64 * 1024 ** 3)).toBe(MAX_JSON_BYTES);
  });

  test("is refused with a message naming the limit; the viewer (200 MB heap) keeps serving", async () => {
    const list = await fetchJson("/api/runs");
    expect(list.status).toBe(200);
    expect(list.body.runs?.[0]?.status).toBe("error");
    const r = await fetchJson("/api/run?run=humaneval%2Fbig");
    expect(r.status).toBe(422);
    expect(r.body.error).toMatch(/too large to read .*max-old-space-size/);
    expect((await fetchJson("/api/runs")).status).toBe(200);
    expect(child.exitCode).toBeNull();
  }, 60_000);
});
