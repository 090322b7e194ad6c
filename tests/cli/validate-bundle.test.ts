import { describe, expect, test } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliEntry } from "../../src/util/package-root.js";
import { parseValidateArgs } from "../../src/cli/validate-bundle.js";
import { sampleBundle } from "../bundle/sample.js";

function run(...args: string[]) {
  return spawnSync(process.execPath, [cliEntry, "validate-bundle", ...args], { encoding: "utf8" });
}

describe("validate-bundle CLI (built dist)", () => {
  test("exit 0 valid, 1 invalid with paths, 2 unreadable / usage", () => {
    const dir = mkdtempSync(join(tmpdir(), "vb-"));
    const good = join(dir, "good.json");
    writeFileSync(
      good,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        result: { artifacts: [{ name: "evaluation_bundle", parts: [{ kind: "data", data: sampleBundle() }] }] },
      }),
    );
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ ...sampleBundle(), exit_code: -5 }));
    const r0 = run(good);
    expect(r0.status).toBe(0);
    expect(r0.stdout).toMatch(/^valid: humaneval run r1/);
    const r1 = run(bad);
    expect(r1.status).toBe(1);
    expect(r1.stdout).toMatch(/\/exit_code: must be >= 0/);
    expect(run(join(dir, "missing.json")).status).toBe(2);
    writeFileSync(join(dir, "junk.json"), "{nope");
    expect(run(join(dir, "junk.json")).status).toBe(2);
    expect(run().status).toBe(2);
    expect(execFileSync(process.execPath, [cliEntry, "validate-bundle", "--help"], { encoding: "utf8" })).toMatch(
      /Usage: a2a-bench validate-bundle FILE/,
    );
    rmSync(dir, { recursive: true, force: true });
  });
  test("reads the smoke client's saved response: artifact updates joined per artifactId, chunked JSON text too", () => {
    const dir = mkdtempSync(join(tmpdir(), "vb-smoke-"));
    const text = JSON.stringify(sampleBundle());
    const half = Math.floor(text.length / 2);
    const update = (parts: unknown[], append: boolean) => ({
      jsonrpc: "2.0",
      id: 1,
      result: {
        kind: "artifact-update",
        taskId: "t",
        append,
        artifact: { artifactId: "a1", name: "evaluation_bundle", parts },
      },
    });
    const saved = {
      green_url: "http://127.0.0.1:9999/",
      methods: ["message/stream"],
      final_state: "completed",
      transport_error: null,
      events: [
        { jsonrpc: "2.0", id: 1, result: { kind: "status-update", taskId: "t", status: { state: "working" } } },
        update([{ kind: "text", text: text.slice(0, half) }], false),
        update([{ kind: "text", text: text.slice(half) }], true),
      ],
    };
    const file = join(dir, "x-response.json");
    writeFileSync(file, JSON.stringify(saved));
    const ok = run(file);
    expect(ok.stdout).toBe(
      "valid: humaneval run r1, exit_code 0 (bundle from saved stream: events[].result.artifact[name=evaluation_bundle])\n",
    );
    expect(ok.status).toBe(0);

    // The same stream as `curl -N` prints it (SSE `data:` lines).
    const capture = join(dir, "stream.txt");
    writeFileSync(capture, saved.events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(""));
    expect(run(capture).stdout).toMatch(/^valid: humaneval run r1, exit_code 0 \(bundle from saved stream/);

    writeFileSync(file, JSON.stringify({ ...saved, final_state: "failed", events: saved.events.slice(0, 1) }));
    const none = run(file);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain(
      'saved stream of 1 event(s) has no evaluation_bundle artifact with a DataPart or JSON TextPart; the task ended "failed"',
    );
    rmSync(dir, { recursive: true, force: true });
  });

  test("parse is pure and strict", () => {
    expect(parseValidateArgs(["x.json"])).toEqual({ file: "x.json" });
    expect(() => parseValidateArgs(["--what", "x"])).toThrow(/unknown option --what/);
  });
});
