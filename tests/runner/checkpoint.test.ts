import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson } from "../../src/runner/canonical-json.js";
import {
  CHECKPOINT_SCHEMA_VERSION,
  assertSameIdentity,
  computeChecksum,
  readCheckpoint,
  writeCheckpoint,
  type CheckpointIdentity,
} from "../../src/runner/checkpoint.js";

const identity: CheckpointIdentity = {
  benchmark: "humaneval",
  dataset: "sample",
  dataset_sha256: "a".repeat(64),
  seed: 1,
  agent: "http://127.0.0.1:1/",
  samples: null,
  n: 1,
  k: [1],
  shard_index: 0,
  num_shards: 1,
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ckpt-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("canonical JSON", () => {
  it("matches Python json.dumps(sort_keys=True, separators=(',', ':'))", () => {
    // Astral-plane vs U+FF61 keys: UTF-16 order and code-point order disagree; Python sorts by code point.
    const value = {
      b: [1, "x", null, true],
      a: { z: 'é ünï "q" \n', y: -3.5 },
      ä: 2,
      "\u{1F600}k": 1,
      "\uFF61k": 2,
      zz: { "\u{1F600}": 3, "\uFF61": 4 },
    };
    const py = execFileSync(
      "python3",
      [
        "-c",
        "import json,sys; print(json.dumps(json.loads(sys.stdin.read()), sort_keys=True, separators=(',', ':')), end='')",
      ],
      { input: JSON.stringify(value) },
    ).toString();
    expect(canonicalJson(value)).toBe(py);
  });
});

describe("checkpoint", () => {
  it("round-trips and carries the smi_bench checksum", async () => {
    const path = join(dir, "checkpoint.json");
    const body = {
      schema_version: CHECKPOINT_SCHEMA_VERSION,
      run_id: "r1",
      identity,
      updated_at_unix_seconds: 5,
      rows: [{ id: "t/0", status: "passed", passed: true, elapsed_seconds: 0.1 }],
    };
    await writeCheckpoint(path, body);
    const raw = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    const expected = createHash("sha256").update(canonicalJson(body)).digest("hex").slice(0, 8);
    expect(raw["_checksum"]).toBe(expected);
    expect(computeChecksum(raw)).toBe(expected);
    const loaded = await readCheckpoint(path);
    expect(loaded.rows).toEqual(body.rows);
    expect(loaded.identity).toEqual(identity);
  });

  it("refuses a hand-edited checkpoint", async () => {
    const path = join(dir, "checkpoint.json");
    await writeCheckpoint(path, {
      schema_version: 1,
      run_id: "r1",
      identity,
      updated_at_unix_seconds: 5,
      rows: [{ id: "t/0", status: "failed", passed: false, elapsed_seconds: 1 }],
    });
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace('"passed": false', '"passed": true'));
    await expect(readCheckpoint(path)).rejects.toMatchObject({ code: "E_CHECKPOINT_CORRUPT" });
  });

  it("refuses truncated JSON and a missing checksum", async () => {
    const path = join(dir, "checkpoint.json");
    await writeFile(path, '{"schema_version": 1, "rows": [');
    await expect(readCheckpoint(path)).rejects.toMatchObject({ code: "E_CHECKPOINT_CORRUPT" });
    await writeFile(path, JSON.stringify({ schema_version: 1, run_id: "x", identity, rows: [] }));
    await expect(readCheckpoint(path)).rejects.toMatchObject({ code: "E_CHECKPOINT_CORRUPT" });
  });

  it("reports a missing checkpoint as such", async () => {
    await expect(readCheckpoint(join(dir, "nope.json"))).rejects.toMatchObject({ code: "E_CHECKPOINT_MISSING" });
  });

  it("names every setting that differs", () => {
    expect(() => assertSameIdentity(identity, { ...identity, seed: 2, agent: "http://127.0.0.1:2/" }, "ck")).toThrow(
      /seed: checkpoint 1, now 2.*agent: checkpoint "http:\/\/127.0.0.1:1\/", now "http:\/\/127.0.0.1:2\/"/,
    );
    expect(() => assertSameIdentity(identity, { ...identity }, "ck")).not.toThrow();
  });
});
