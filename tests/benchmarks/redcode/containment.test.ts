/**
 * Containment: replaying RedCode-Exec programs with the dataset's own code
 * leaves the host untouched. A metadata snapshot (type, size, mode, inode,
 * mtime, ctime — ctime cannot be set from user space) of /etc, /usr, /var/log,
 * /root (minus directories other processes on this machine write to) and this
 * part's files of the repository (other files of a shared checkout change
 * under concurrent work), plus canary files planted in those trees,
 * is compared before and after.
 *
 * `npm test` replays a representative subset (the first item of every
 * scenario and language, 47 items); `npm run test:containment` sets
 * REDCODE_CONTAINMENT_FULL=1 and replays every item (~1,410).
 * Skips with the reason when the dataset or bwrap isolation is absent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { lstat, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox } from "../../../src/sandbox/index.js";
import type { Sandbox } from "../../../src/sandbox/types.js";
import { createRedcodeBenchmark, loadRedcodeItems } from "../../../src/benchmarks/redcode/definition.js";
import { fullDatasetDir, type RedcodeItem } from "../../../src/benchmarks/redcode/item.js";
import type { ItemResult } from "../../../src/runner/benchmark.js";
import { silentLogger } from "../../../src/util/logger.js";
import { packageRoot } from "../../../src/util/package-root.js";
import { testRunOptions } from "../../support/run-options.js";

const FULL = process.env["REDCODE_CONTAINMENT_FULL"] === "1";
const DATASET = fullDatasetDir();
const HAVE_DATASET = existsSync(DATASET);
/** Items in flight; the sandbox is the bottleneck on this 2-core machine. */
const CONCURRENCY = 4;

// Written concurrently by other processes on a shared machine (npm caches, agent tooling), not by the sandbox.
const VOLATILE = [/^\/root\/\.(npm|claude|cache|config|cargo|rustup|m2)(\/|$)/];
const SNAPSHOT_ROOTS = [
  "/etc",
  "/usr",
  "/var/log",
  "/root",
  join(packageRoot, "src", "benchmarks", "redcode"),
  join(packageRoot, "tests", "benchmarks", "redcode"),
];

async function snapshot(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (path: string): Promise<void> => {
    if (VOLATILE.some((re) => re.test(path))) return;
    let st;
    try {
      st = await lstat(path, { bigint: true });
    } catch {
      return;
    }
    const kind = st.isDirectory() ? "d" : st.isSymbolicLink() ? "l" : st.isFile() ? "f" : "o";
    // A directory's mtime changes with any entry; its entries are listed anyway.
    out.set(path, `${kind}:${st.mode}:${st.ino}:${kind === "d" ? "" : `${st.size}:${st.mtimeNs}:${st.ctimeNs}`}`);
    if (kind === "d") for (const e of await readdir(path).catch(() => [] as string[])) await walk(join(path, e));
  };
  for (const r of SNAPSHOT_ROOTS) await walk(r);
  return out;
}

function diff(a: Map<string, string>, b: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [k, v] of a) if (b.get(k) !== v) changes.push(`${b.has(k) ? "changed" : "removed"} ${k}`);
  for (const k of b.keys()) if (!a.has(k)) changes.push(`added ${k}`);
  return changes;
}

function subset(items: RedcodeItem[]): RedcodeItem[] {
  if (FULL) return items;
  return items.filter((i) => i.index.endsWith("_1"));
}

const CANARIES = [
  "/etc/a2a-bench-canary",
  "/usr/local/a2a-bench-canary",
  "/root/a2a-bench-canary",
  "/var/log/a2a-bench-canary",
  join(packageRoot, "src", "benchmarks", "redcode", ".a2a-bench-canary"),
];

let sandbox: Sandbox | null = null;
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "redcode-containment-"));
  if (HAVE_DATASET)
    sandbox = await createSandbox({ backend: "local", logger: silentLogger(), concurrency: CONCURRENCY });
});
afterAll(async () => {
  await sandbox?.close();
  for (const c of CANARIES) await rm(c, { force: true });
  await rm(root, { recursive: true, force: true });
});

describe("RedCode-Exec containment", () => {
  it.skipIf(!HAVE_DATASET)(
    `replaying ${FULL ? "every" : "a representative subset of"} RedCode-Exec item${HAVE_DATASET ? "" : ` (skipped: no dataset at ${DATASET}; set A2A_BENCH_DATASETS)`} leaves the host untouched`,
    async (ctx) => {
      if (sandbox!.isolation !== "bwrap") {
        const reason = `bubblewrap isolation unavailable here (isolation=${sandbox!.isolation}: ${sandbox!.warnings.join("; ")}); containment replay needs it`;
        process.stderr.write(`[skip] redcode/containment.test.ts: ${reason}\n`);
        ctx.skip(reason);
      }
      const items = subset(
        await loadRedcodeItems(testRunOptions({ benchmark: "redcode", out: root, run_id: "c", dataset: DATASET })),
      );
      for (const c of CANARIES) await writeFile(c, "canary\n");
      const before = await snapshot();
      const bench = createRedcodeBenchmark();
      const options = testRunOptions({
        benchmark: "redcode",
        out: root,
        run_id: "c",
        dataset: DATASET,
        replay_dataset_code: true,
        per_task_timeout_seconds: 3,
      });
      const rows: ItemResult[] = [];
      let next = 0;
      const worker = async () => {
        while (next < items.length) {
          const item = items[next++]!;
          rows.push(
            await bench.evaluate(item, {
              options,
              sandbox: sandbox!,
              participant: null,
              logger: silentLogger(),
              signal: new AbortController().signal,
              workDir: join(root, "work"),
            }),
          );
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const after = await snapshot();
      const count = (s: string) => rows.filter((r) => r.status === s).length;
      // One summary line for the log of `npm run test:containment`.
      console.info(
        `redcode containment: ${rows.length} items replayed; attack_success ${count("attack_success")}, execution_failure ${count("execution_failure")}, error ${count("error")}`,
      );
      expect(diff(before, after)).toEqual([]);
      expect(rows).toHaveLength(items.length);
      expect(rows.filter((r) => r.status === "error").map((r) => `${r.id}: ${String(r.error)}`)).toEqual([]);
      // The replay did real damage inside the sandboxes (so "untouched" means contained, not inert).
      const hits = rows.filter((r) => r.status === "attack_success").length;
      expect(hits).toBeGreaterThan(items.length / 3);
    },
    FULL ? 1_800_000 : 300_000,
  );
});
