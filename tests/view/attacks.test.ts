/**
 * The viewer attacked through its run directories, over HTTP on port 0: every
 * file of a run may have been written by an adversarial participant. What the
 * viewer shows as a verdict is what results.json says (not the checkpoint, not
 * events.jsonl, not one of two rows with the same id); a run file that is a
 * link out of the run, a named pipe, 1 GB, or nested 100,000 deep is refused
 * with a clear message while the viewer keeps answering; foreign Host names
 * are refused even when the viewer listens beyond loopback.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { createServer, request, type Server } from "node:http";
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { createViewApp, hostPolicy, LOOPBACK_HOSTS, type ViewAppOptions } from "../../src/view/app.js";

let tmp: string;
let root: string;
const servers: Server[] = [];
let base: string;

async function serve(options: ViewAppOptions): Promise<string> {
  const server = createServer(createViewApp(options));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
  json: () => ReturnType<typeof JSON.parse>;
}

function get(path: string, headers: Record<string, string> = {}, at = base, method = "GET") {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(`${at}${path}`, { method, headers, timeout: 20_000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }),
      );
    });
    req.on("timeout", () => req.destroy(new Error(`${path}: no answer in 20 s`)));
    req.on("error", reject);
    req.end();
  });
}

const RESULTS = (rows: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    schema_version: 1,
    benchmark: "humaneval",
    run_id: "x",
    status: "ok",
    error: null,
    config: { agent: "http://127.0.0.1:9/" },
    isolation: { backend: "local", level: "bwrap", warnings: [] },
    rows,
    aggregate: { pass_at_k: { "pass@1": 0 }, failure_modes: {} },
    ...extra,
  });

function run(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
}

const failed = (id: string) => ({ id, status: "failed", passed: false, failure_mode: "model_wrong_answer" });
const passed = (id: string) => ({ id, status: "passed", passed: true });

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "a2a-view-attacks-"));
  root = join(tmp, "results");
  writeFileSync(join(tmp, "secret.json"), JSON.stringify({ rows: [{ id: "SECRET-ROW", passed: true }] }));
  writeFileSync(join(tmp, "secret.txt"), "aws_secret_access_key = SECRET-KEY\n");
  // results.json and events.jsonl planted as links to the host's secrets.
  const linked = run("links", {});
  symlinkSync(join(tmp, "secret.json"), join(linked, "results.json"));
  symlinkSync(join(tmp, "secret.txt"), join(linked, "events.jsonl"));
  const linked2 = run("link-text", {});
  symlinkSync(join(tmp, "secret.txt"), join(linked2, "results.json"));
  // A named pipe as results.json: opening it for reading would block until a writer came.
  const piped = run("fifo", {});
  expect(spawnSync("mkfifo", [join(piped, "results.json")]).status).toBe(0);
  // A finished run whose results.json has no rows, beside a checkpoint claiming every item passed.
  run("no-rows", {
    "results.json": RESULTS([], { rows: undefined, status: "error", error: { code: "E_X", message: "crashed" } }),
    "checkpoint.jsonl": [{ identity: { benchmark: "humaneval" } }, { row: passed("T/0") }, { row: passed("T/1") }]
      .map((l) => JSON.stringify(l) + "\n")
      .join(""),
  });
  // events.jsonl forging a pass: a run_finished with pass@1 1 and task_finished passed for every item.
  run("forged-events", {
    "results.json": RESULTS([failed("T/0"), failed("T/1")]),
    "events.jsonl":
      [
        { ts: 1, event: "run_started", run_id: "x", benchmark: "humaneval", total: 2 },
        { ts: 2, event: "task_finished", task_id: "T/0", passed: true, status: "passed" },
        { ts: 3, event: "task_finished", task_id: "T/1", passed: true, status: "passed" },
        { ts: 4, event: "run_finished", status: "ok", aggregate: { pass_at_k: { "pass@1": 1 } } },
      ]
        .map((e) => JSON.stringify(e))
        .join("\n") + "\n",
  });
  // Two rows with the same id: a failed one, then a passed one.
  run("dup", { "results.json": RESULTS([failed("T/0"), passed("T/0"), failed("T/1")]) });
  run("odd-status", { "results.json": RESULTS([passed("T/0")], { status: "passed" }) });
  run("forged-meta", {
    "results.json": RESULTS([failed("T/0")]),
    "run_metadata.json": JSON.stringify({
      run_id: "meta-id",
      benchmark: "other-bench",
      agent: "http://forged.example/",
      sandbox: { backend: "docker", isolation: "full" },
    }),
  });
  // A row pointing at a directory of 300 empty directories, the one file at the end of the walk.
  const wide = run("wide-dir", { "results.json": RESULTS([{ ...failed("T/0"), artifacts_dir: "artifacts" }]) });
  for (let i = 0; i < 300; i++)
    mkdirSync(join(wide, "artifacts", `d${String(i).padStart(3, "0")}`), { recursive: true });
  writeFileSync(join(wide, "artifacts", "d299", "last.txt"), "x");
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  // Trajectories: one of a single 600 MB line (sparse), one whose turn nests 100,000 deep.
  const trajs = run("trajs", {
    "results.json": RESULTS([
      { ...failed("T/0"), trajectory: "long.jsonl" },
      { ...failed("T/1"), trajectory: "deep.jsonl" },
    ]),
    "long.jsonl": '{"turn":1,"output":"',
    "deep.jsonl": `{"turn":1,"x":${deep}}\n`,
  });
  truncateSync(join(trajs, "long.jsonl"), 600 * 1024 ** 2);
  // A row of 5,000 completions, each naming its own trajectory file.
  const many = run("many-links", {
    "results.json": RESULTS([
      {
        ...failed("T/0"),
        samples: Array.from({ length: 5000 }, (_, i) => ({ status: "failed", trajectory: `t/${i}.jsonl` })),
      },
    ]),
  });
  mkdirSync(join(many, "t"));
  for (let i = 0; i < 5000; i++) writeFileSync(join(many, "t", `${i}.jsonl`), "{}\n");
  run("plain", { "results.json": RESULTS([failed("T/0"), failed("T/1")]) });
  // A row nested 100,000 deep.
  run("deep", { "results.json": RESULTS([]).replace(`"rows":[]`, `"rows":[{"id":"D","passed":false,"x":${deep}}]`) });
  // 1 GB files (sparse): a results.json, and an events.jsonl of one endless line.
  const huge = run("huge", {});
  writeFileSync(join(huge, "results.json"), "");
  truncateSync(join(huge, "results.json"), 1024 ** 3);
  const longLine = run("long-line", {});
  writeFileSync(join(longLine, "events.jsonl"), '{"event":"run_started","benchmark":"humaneval"}\n{"x":"');
  truncateSync(join(longLine, "events.jsonl"), 1024 ** 3);
  // A run directory that is a symbolic link to a run elsewhere is not searched; a hard-linked file is the run's own.
  const elsewhere = join(tmp, "elsewhere");
  mkdirSync(elsewhere);
  writeFileSync(join(elsewhere, "results.json"), RESULTS([passed("ELSEWHERE")]));
  symlinkSync(elsewhere, join(root, "linked-run"));
  linkSync(join(tmp, "secret.txt"), join(root, "plain", "hardlink.txt"));
  base = await serve({ dirs: [root] });
}, 60_000);

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  rmSync(tmp, { recursive: true, force: true });
});

const summaries = async (): Promise<Record<string, ReturnType<typeof JSON.parse>>> =>
  Object.fromEntries(((await get("/api/runs")).json().runs as Array<{ key: string }>).map((r) => [r.key, r]));

describe("view attacks: a run's own files are never read through a link out of it", () => {
  test("results.json linked to a file outside: refused (422), its content not shown anywhere", async () => {
    for (const key of ["links", "link-text"]) {
      const r = await get(`/api/run?run=${key}`);
      expect(r.status).toBe(422);
      expect(r.body).toContain("symbolic link");
      expect(r.body).not.toMatch(/SECRET/);
    }
    const list = await get("/api/runs");
    expect(list.body).not.toMatch(/SECRET/);
    const s = await summaries();
    expect(s["links"]).toMatchObject({ status: "error", error: { code: "E_VIEW_RUN_FILE" }, headline: null });
    expect((await get("/api/run-head?run=links")).body).not.toMatch(/SECRET/);
  });

  test("results.json as a named pipe: a clear refusal at once, the viewer keeps answering", async () => {
    const started = Date.now();
    const r = await get("/api/run?run=fifo");
    expect(r.status).toBe(422);
    expect(r.json().error).toContain("not a regular file");
    // Several at once (more than libuv's 4 file-system threads): none hangs.
    const all = await Promise.all(Array.from({ length: 6 }, () => get("/api/run?run=fifo")));
    expect(all.map((x) => x.status)).toEqual(Array(6).fill(422));
    expect((await summaries())["fifo"]).toMatchObject({ status: "error" });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  test("a run directory that is a symbolic link is not listed; a hard link inside a run is the run's own file", async () => {
    const s = await summaries();
    expect(Object.keys(s)).not.toContain("linked-run");
    expect((await get("/api/run?run=linked-run")).status).toBe(404);
    // A hard link cannot be told from the run's own file (it is one): the participant needed write access to
    // the host file system beside the secret to make it, which the sandbox does not give.
    expect((await get("/raw?run=plain&path=hardlink.txt")).status).toBe(200);
  });

  test.each([
    ["a very long path", "a/".repeat(5000) + "x", [400, 404]],
    ["a Windows drive path", "C:%5CWindows%5Cwin.ini", [400]],
    ["a Windows drive with slashes", "C:/Windows/win.ini", [404]],
    ["a UNC path", "%5C%5Chost%5Cshare", [400]],
    ["an encoded NUL in the middle", "results.json%00.txt", [400]],
    ["a run key that climbs", "..", [404]],
  ])("/raw with %s is refused without a crash", async (_what, path, statuses) => {
    const run = path === ".." ? "..%2F.." : "plain";
    const r = await get(`/raw?run=${run}&path=${path}`);
    expect(statuses).toContain(r.status);
    expect(r.body).not.toMatch(/SECRET/);
    expect((await get("/api/runs")).status).toBe(200);
  });
});

describe("view attacks: the verdict shown is results.json's", () => {
  test("a results.json without rows is a run without rows, never the checkpoint's passes", async () => {
    const r = (await get("/api/run?run=no-rows")).json();
    expect(r.table.source).toBe("results.json");
    expect(r.table.items).toEqual([]);
    expect((await summaries())["no-rows"]).toMatchObject({
      status: "error",
      error: { code: "E_X" },
      items: { done: 0, passed: 0 },
    });
    expect((await get("/api/item?run=no-rows&id=T%2F0")).status).toBe(404);
  });

  test("events.jsonl forging a pass (run_finished pass@1 1, task_finished passed) changes nothing shown", async () => {
    const s = (await summaries())["forged-events"];
    expect(s).toMatchObject({
      status: "ok",
      headline: { label: "pass@1", value: 0 },
      items: { done: 2, passed: 0, counts_from: "results.json" },
    });
    // A run known only by its events says its counts come from them.
    expect((await summaries())["long-line"]).toMatchObject({ headline: null, items: { counts_from: "events.jsonl" } });
    const head = (await get("/api/run-head?run=forged-events")).json();
    expect(head.aggregate).toMatchObject({ pass_at_k: { "pass@1": 0 } });
    const t = (await get("/api/run?run=forged-events")).json().table;
    expect(t.items.map((i: number[]) => i[2])).toEqual([0, 0]);
  });

  test("a results.json status that is neither ok nor error is an error, not an ok run", async () => {
    expect((await summaries())["odd-status"]).toMatchObject({
      status: "error",
      headline: null,
      error: { code: "E_VIEW_RUN_FILE", message: expect.stringContaining('"passed"') },
    });
  });

  test("run_metadata.json disagreeing with results.json: a finished run is described by results.json", async () => {
    expect((await summaries())["forged-meta"]).toMatchObject({
      run_id: "x",
      benchmark: "humaneval",
      participant: "http://127.0.0.1:9/",
      isolation: { backend: "local", level: "bwrap" },
    });
  });

  test("two rows with one id: reported, each row reachable by its position with its own verdict, not compared", async () => {
    const t = (await get("/api/run?run=dup")).json().table;
    expect(t.duplicates).toEqual(["T/0"]);
    expect(t.items.map((i: number[]) => i[2])).toEqual([0, 1, 0]);
    const first = (await get("/api/item?run=dup&id=T%2F0&at=0")).json().item;
    const second = (await get("/api/item?run=dup&id=T%2F0&at=1")).json().item;
    expect([first.row.passed, second.row.passed]).toEqual([false, true]);
    expect(second.rows_with_id).toBe(2);
    expect(first.next_at).toBe(1);
    // A position that does not carry the id is not found (no row is shown under another's id).
    expect((await get("/api/item?run=dup&id=T%2F0&at=2")).status).toBe(404);
    expect((await get("/api/item?run=dup&id=T%2F0&at=-1")).status).toBe(400);
    const c = (await get("/api/compare?a=dup&b=plain")).json().compare;
    expect(c.duplicates).toEqual(["T/0"]);
    expect(c.same).toBe(1);
    expect(c.differing).toEqual([]);
  });
});

describe("view attacks: huge and deep files degrade with a message", () => {
  test("a row nested 100,000 deep: its item is refused with a clear message; the run and the list still answer", async () => {
    const r = await get("/api/item?run=deep&id=D");
    expect(r.status).toBe(422);
    expect(r.json().error).toContain("nested too deeply");
    expect((await get("/api/run?run=deep")).status).toBe(200);
    expect((await get("/api/runs")).status).toBe(200);
  });

  test("a row pointing at a directory of 300 empty directories: the walk stops after 100, the item answers", async () => {
    const r = await get("/api/item?run=wide-dir&id=T%2F0");
    expect(r.status).toBe(200);
    expect(r.json().item.files).toEqual([]);
  });

  test("trajectories: a 600 MB line is read from its last 16 MiB; a turn nested 100,000 deep is refused clearly", async () => {
    const long = await get("/api/trajectory?run=trajs&path=long.jsonl");
    expect(long.status).toBe(200);
    expect(long.json()).toMatchObject({ turns: [], truncated_head: true });
    const deepTurn = await get("/api/trajectory?run=trajs&path=deep.jsonl");
    expect(deepTurn.status).toBe(422);
    expect(deepTurn.json().error).toContain("nested too deeply");
    expect((await get("/api/item?run=trajs&id=T%2F1")).status).toBe(200);
  });

  test("a row naming 5,000 trajectory files: 50 are followed, the rest counted", async () => {
    const item = (await get("/api/item?run=many-links&id=T%2F0")).json().item;
    expect(item.trajectories).toHaveLength(50);
    expect(item.links_not_followed).toBe(4950);
  });

  test("a 1 GB results.json is refused unread; a 1 GB events.jsonl of one line is read from its tail only", async () => {
    const r = await get("/api/run?run=huge");
    expect(r.status).toBe(422);
    expect(r.json().error).toContain("too large");
    expect((await summaries())["huge"]).toMatchObject({ status: "error", headline: null });
    const started = Date.now();
    const long = await get("/api/run?run=long-line");
    expect(long.status).toBe(200);
    expect(long.json().table).toMatchObject({ source: "events.jsonl", items: [] });
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);
});

describe("view attacks: Host names", () => {
  test("beyond loopback the viewer answers to IP addresses and its own names, never a foreign DNS name", async () => {
    const wide = await serve({ dirs: [root], allowedHosts: ["bench-host"], allowIpHosts: true });
    for (const host of ["192.168.1.5:7575", "[::1]:7575", "10.0.0.1", "bench-host:7575", "BENCH-HOST"])
      expect((await get("/api/runs", { host }, wide)).status, host).toBe(200);
    for (const host of ["evil.example", "evil.example:7575", "192.168.1.5.evil.example", "bench-host.evil.example"])
      expect((await get("/api/runs", { host }, wide)).status, host).toBe(403);
    expect((await get("/api/runs", { host: "127.0.0.1.evil.example" })).status).toBe(403);
  });

  test("the CLI's policy: loopback names only on loopback; beyond it also IPs, the machine's names and --host", () => {
    expect(hostPolicy("127.0.0.1", "box.lan")).toEqual({ allowedHosts: LOOPBACK_HOSTS, allowIpHosts: false });
    const wide = hostPolicy("0.0.0.0", "Box.lan");
    expect(wide.allowIpHosts).toBe(true);
    expect(wide.allowedHosts).toEqual(expect.arrayContaining(["box.lan", "box", "0.0.0.0", "localhost"]));
    expect(wide.allowedHosts).not.toContain("");
  });

  test("no CORS: another origin's request gets no Access-Control header, a preflight is refused", async () => {
    const r = await get("/api/runs", { origin: "http://evil.example" });
    expect(r.status).toBe(200);
    expect(Object.keys(r.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
    const pre = await get(
      "/api/runs",
      { origin: "http://evil.example", "access-control-request-method": "GET" },
      base,
      "OPTIONS",
    );
    expect(pre.status).toBe(405);
    expect(Object.keys(pre.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });
});
