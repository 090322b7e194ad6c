/**
 * Bad config values sent to the green agent end the task `rejected` with a
 * reason naming the key, and nothing is written anywhere: not outside the
 * results root, and (since validation precedes the work dir) not inside it.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createGreenApp, type GreenApp } from "../../src/green/app.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { fixtureRunner } from "../green/helpers.js";
import { message, rpc } from "../conformance/agents.js";

/** Every file and directory under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      out.push(relative(dir, p));
      if (statSync(p).isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

const cases: Array<[string, Record<string, unknown>, RegExp]> = [
  ["negative samples", { samples: -1 }, /config\.samples|samples.*>= 1|minimum/],
  ["zero samples", { samples: 0 }, /samples/],
  ["fractional samples", { samples: 2.5 }, /samples.*integer/],
  ["negative per-task timeout", { per_task_timeout_seconds: -3 }, /per_task_timeout_seconds/],
  ["absurd per-task timeout", { per_task_timeout_seconds: 1e9 }, /per_task_timeout_seconds/],
  ["absurd agent timeout", { agent_timeout_seconds: 86_400 * 365 }, /agent_timeout_seconds/],
  ["absurd concurrency", { concurrency: 100_000 }, /concurrency/],
  [
    "dataset outside the allowed roots",
    { dataset: "/etc/passwd" },
    /config\.dataset: path "\/etc\/passwd" is outside the allowed roots/,
  ],
  [
    "dataset escaping by ..",
    { dataset: "data/../../outside.jsonl" },
    /config\.dataset: path .* is outside the allowed roots/,
  ],
  [
    "predictions outside the allowed roots",
    { benchmark: "swebench", predictions: "/tmp/preds.json" },
    /config\.predictions: path .* outside the allowed roots/,
  ],
  ["unknown benchmark", { benchmark: "mmlu" }, /config\/benchmark: must be one of/],
  ["run_id with a path separator", { run_id: "../../escape" }, /config\/run_id: must match pattern/],
  ["unknown key", { out_dir_override: "/tmp/x" }, /out_dir_override/],
  ["operator-only key", { sparc_package_cache_dir: "/tmp/cache" }, /sparc_package_cache_dir: operator-only/],
];

describe("bad config values through the green agent", () => {
  let home: string;
  let green: GreenApp;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "bad-config-"));
    mkdirSync(join(home, "data"));
    writeFileSync(join(home, "data", "ok.jsonl"), "");
    writeFileSync(join(home, "outside.jsonl"), "");
    const served = await serveOnLoopback((card) => {
      green = createGreenApp({
        card,
        runnerCommand: fixtureRunner("events.mjs"),
        cwd: home,
        env: { PATH: process.env["PATH"] ?? "" },
        settings: { resultsRoot: join(home, "results"), allowedRoots: [join(home, "data")] },
      });
      return green.app;
    });
    url = served.url;
    close = () => served.close();
  });
  afterAll(async () => {
    await green?.shutdown();
    await close?.();
    rmSync(home, { recursive: true, force: true });
  });

  test.each(cases)("%s → rejected with the reason", async (_label, config, reason) => {
    const before = tree(home);
    const body = { participants: { agent: "http://127.0.0.1:9/" }, config: { benchmark: "humaneval", ...config } };
    const r = await rpc(url, "message/send", { message: message(JSON.stringify(body)) });
    const task = r.body.result as {
      status: { state: string; message?: { parts: Array<{ kind: string; text?: string }> } };
    };
    expect(task.status.state).toBe("rejected");
    const text = task.status.message?.parts.find((p) => p.kind === "text")?.text ?? "";
    expect(text).toMatch(/^Request rejected/);
    expect(text).toMatch(reason);
    expect(tree(home)).toEqual(before);
  });

  test("after all the rejections, nothing was written: no results dir, no stray file", () => {
    expect(tree(home)).toEqual(["data", "data/ok.jsonl", "outside.jsonl"]);
  });
});
