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
  appendCheckpoint,
  dropTornTail,
  encodeRowLine,
  readCheckpoint,
  startCheckpoint,
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
  const header = { schema_version: CHECKPOINT_SCHEMA_VERSION, run_id: "r1", identity, created_at_unix_seconds: 5 };
  const rows = [
    { id: "t/0", status: "passed", passed: true, elapsed_seconds: 0.1 },
    { id: "t/1", status: "failed", passed: false, elapsed_seconds: 1, note: "ünï" },
  ];
  const write = async (path: string): Promise<void> => {
    await startCheckpoint(path, header);
    await appendCheckpoint(path, rows.map(encodeRowLine).join(""));
  };

  it("round-trips as JSON lines, each carrying the smi_bench checksum of its object", async () => {
    const path = join(dir, "checkpoint.jsonl");
    await write(path);
    const lines = (await readFile(path, "utf8")).split("\n");
    expect(lines).toHaveLength(4); // header, two rows, final newline
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first["_checksum"]).toBe(createHash("sha256").update(canonicalJson(header)).digest("hex").slice(0, 8));
    const second = JSON.parse(lines[1]!) as Record<string, unknown>;
    const expected = createHash("sha256")
      .update(canonicalJson({ row: rows[0] }))
      .digest("hex")
      .slice(0, 8);
    expect(second["_checksum"]).toBe(expected);
    expect(computeChecksum(second)).toBe(expected);
    const loaded = await readCheckpoint(path);
    expect(loaded.rows).toEqual(rows);
    expect(loaded.identity).toEqual(identity);
    expect(loaded.tornTail).toBe(false);
  });

  it("refuses a hand-edited row, naming its line", async () => {
    const path = join(dir, "checkpoint.jsonl");
    await write(path);
    const text = await readFile(path, "utf8");
    await writeFile(path, text.replace('"passed":false', '"passed":true'));
    await expect(readCheckpoint(path)).rejects.toMatchObject({
      code: "E_CHECKPOINT_CORRUPT",
      message: expect.stringMatching(/line 3 failed its integrity check/),
    });
  });

  it("drops a torn last line (cut back off the file) but refuses a bad line inside", async () => {
    const path = join(dir, "checkpoint.jsonl");
    await write(path);
    const whole = await readFile(path, "utf8");
    await writeFile(
      path,
      whole + encodeRowLine({ id: "t/2", status: "passed", passed: true, elapsed_seconds: 2 }).slice(0, 30),
    );
    const saved = await readCheckpoint(path);
    expect(saved.rows).toEqual(rows);
    expect(saved.tornTail).toBe(true);
    await dropTornTail(path, saved);
    expect(await readFile(path, "utf8")).toBe(whole);
    const [h, r0, r1] = whole.split("\n");
    await writeFile(path, [h, r0!.slice(0, 30), r1, ""].join("\n"));
    await expect(readCheckpoint(path)).rejects.toMatchObject({
      code: "E_CHECKPOINT_CORRUPT",
      message: expect.stringMatching(/line 2 is not valid JSON/),
    });
  });

  it("refuses a missing checksum, an old layout and a file without header", async () => {
    const path = join(dir, "checkpoint.jsonl");
    await writeFile(path, JSON.stringify({ ...header }) + "\n");
    await expect(readCheckpoint(path)).rejects.toMatchObject({ code: "E_CHECKPOINT_CORRUPT" });
    const old = { ...header, schema_version: 1, rows: [] };
    await writeFile(path, JSON.stringify({ ...old, _checksum: computeChecksum(old) }) + "\n");
    await expect(readCheckpoint(path)).rejects.toMatchObject({
      code: "E_CHECKPOINT_CORRUPT",
      message: expect.stringMatching(/unknown layout/),
    });
    await writeFile(path, "");
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
