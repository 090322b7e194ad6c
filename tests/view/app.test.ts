/**
 * The viewer's HTTP side on port 0, over hand-made run directories: its
 * headers, the API over finished and still-running runs, and the file route's
 * refusals (`..`, encoded `..`, absolute paths, symbolic links out of the run).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createServer, request, type Server } from "node:http";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { createViewApp } from "../../src/view/app.js";
import { makeTrajectoryRun } from "./fixture-runs.js";

let root: string;
let outside: string;
let server: Server;
let base: string;

function get(path: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const raw = (run: string, path: string) => get(`/raw?run=${encodeURIComponent(run)}&path=${path}`);

beforeAll(async () => {
  const tmp = mkdtempSync(join(tmpdir(), "a2a-view-app-"));
  root = join(tmp, "results");
  outside = join(tmp, "secret.txt");
  writeFileSync(outside, "SECRET\n");
  const traj = makeTrajectoryRun(root);
  writeFileSync(join(traj, "page.html"), "<script>alert(1)</script>");
  symlinkSync(outside, join(traj, "link-out.txt"));
  symlinkSync(tmp, join(traj, "dir-out"));
  // A run still being written: a checkpoint, and events whose last line is cut.
  const live = join(root, "humaneval", "live");
  mkdirSync(live, { recursive: true });
  writeFileSync(
    join(live, "checkpoint.jsonl"),
    [
      {
        schema_version: 2,
        run_id: "live",
        identity: { benchmark: "humaneval", agent: "http://127.0.0.1:9/" },
      },
      { row: { id: "A2ABench/0", status: "passed", passed: true, elapsed_seconds: 0.1 } },
    ]
      .map((l) => JSON.stringify(l) + "\n")
      .join(""),
  );
  writeFileSync(
    join(live, "events.jsonl"),
    [
      { ts: 1, event: "run_started", run_id: "live", benchmark: "humaneval", total: 3, isolation: "bwrap" },
      { ts: 2, event: "task_finished", task_id: "A2ABench/0", passed: true, status: "passed" },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n") + "\n",
  );
  appendFileSync(join(live, "events.jsonl"), '{"ts":3,"event":"task_fin');
  server = createServer(createViewApp({ dirs: [root] }));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(join(root, ".."), { recursive: true, force: true });
});

describe("view app: pages and headers", () => {
  test("the page and its assets carry a strict CSP, nosniff and no referrer", async () => {
    for (const path of ["/", "/assets/view.js", "/assets/view.css", "/api/runs"]) {
      const r = await get(path);
      expect(r.status, path).toBe(200);
      const csp = String(r.headers["content-security-policy"]);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("unsafe-eval");
      expect(r.headers["x-content-type-options"]).toBe("nosniff");
      expect(r.headers["referrer-policy"]).toBe("no-referrer");
    }
    const page = await get("/");
    expect(page.body).toContain('<script src="/assets/view.js"></script>');
    expect(page.body).not.toMatch(/https?:\/\//); // nothing from another origin
  });

  test("a Host that is not the viewer's own name is refused (DNS rebinding)", async () => {
    expect((await get("/api/runs", { host: "evil.example" })).status).toBe(403);
    expect((await get("/api/runs", { host: "localhost:1234" })).status).toBe(200);
  });

  test("only GET (and HEAD)", async () => {
    expect((await get("/api/runs", {}, "POST")).status).toBe(405);
  });
});

describe("view app: the API reads the files as they are", () => {
  test("the runs: a finished one and one still being written (its cut last event line skipped)", async () => {
    const r = await get("/api/runs");
    expect(r.status).toBe(200);
    const runs = (JSON.parse(r.body) as { runs: Array<Record<string, unknown> & { key: string }> }).runs;
    const byKey = Object.fromEntries(runs.map((x) => [x.key, x]));
    expect(Object.keys(byKey).sort()).toEqual(["humaneval/live", "interactive/traj"]);
    expect(byKey["interactive/traj"]).toMatchObject({
      benchmark: "interactive-fixture",
      status: "ok",
      participant: "http://127.0.0.1:9/",
      headline: { label: "accuracy", value: 0 },
      items: { done: 1, passed: 0 },
    });
    expect(byKey["humaneval/live"]).toMatchObject({
      status: "running",
      benchmark: "humaneval",
      participant: "http://127.0.0.1:9/",
      isolation: { level: "bwrap" },
      items: { selected: 3, done: 1, passed: 1 },
      events: { partial_tail: true, bad_lines: 0 },
    });
  });

  test("a running run's table comes from its checkpoint", async () => {
    const r = JSON.parse((await get("/api/run?run=humaneval%2Flive")).body);
    expect(r.table.source).toBe("checkpoint.jsonl");
    expect(r.table.items).toHaveLength(1);
  });

  test("an item with its trajectory file; unknown runs and items are 404", async () => {
    const r = JSON.parse((await get("/api/item?run=interactive%2Ftraj&id=task-1")).body);
    expect(r.item.trajectories).toEqual([{ sample: null, path: "trajectories/task-1.jsonl" }]);
    expect(r.item.files).toContain("trajectories/task-1.jsonl");
    const t = JSON.parse((await get("/api/trajectory?run=interactive%2Ftraj&path=trajectories%2Ftask-1.jsonl")).body);
    expect(t.turns).toHaveLength(3);
    expect((await get("/api/item?run=interactive%2Ftraj&id=nope")).status).toBe(404);
    expect((await get("/api/run?run=..%2F..")).status).toBe(404);
    expect((await get("/api/run?run=interactive")).status).toBe(404);
  });
});

describe("view app: run files only from inside the run directory", () => {
  test("a file of the run is served as plain text that nothing renders", async () => {
    const r = await raw("interactive/traj", "page.html");
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(r.headers["content-security-policy"]).toBe("default-src 'none'; sandbox");
    expect(r.body).toBe("<script>alert(1)</script>");
  });

  test.each([
    ["..", "../../../secret.txt", 403],
    ["encoded ..", "%2e%2e/%2e%2e/%2e%2e/secret.txt", 403],
    ["encoded slash", "..%2F..%2F..%2Fsecret.txt", 403],
    ["double-encoded ..", "%252e%252e/secret.txt", 404],
    ["dot segment", "./results.json", 403],
    ["absolute", encodeURIComponent(join(tmpdir(), "x")), 400],
    ["backslash", "..%5C..%5Csecret.txt", 400],
    ["NUL", "results.json%00", 400],
    ["symlink to a file outside", "link-out.txt", 403],
    ["through a symlinked directory outside", "dir-out/secret.txt", 403],
    ["a directory", "trajectories", 404],
  ])("%s is refused", async (_what, path, status) => {
    const r = await raw("interactive/traj", path);
    expect(r.status).toBe(status);
    expect(r.body).not.toContain("SECRET");
  });

  test("the trajectory route refuses the same paths", async () => {
    const r = await get("/api/trajectory?run=interactive%2Ftraj&path=%2e%2e%2f%2e%2e%2f%2e%2e%2fsecret.txt");
    expect(r.status).toBe(403);
    expect((await get("/api/trajectory?run=interactive%2Ftraj&path=link-out.txt")).status).toBe(403);
  });
});
