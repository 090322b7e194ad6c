/**
 * What a bwrap job can read, compared with the allowlist (src/sandbox/local/host-view.ts): a job walks
 * the filesystem and tries the paths a participant would want — the checkout, the datasets root, a run's
 * results, HOME's files, the host's /tmp, a concurrent job's files, /etc/shadow, and a dataset kept
 * INSIDE an allowlisted tree (stood in for by /usr/share/doc) that the caller names as hidden. Through the fork server
 * and through one-shot execs (python with a work dir, node, asRoot).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.js";
import type { ExecRequest } from "../../src/sandbox/types.js";
import { ETC_ALLOWLIST } from "../../src/sandbox/local/host-view.js";
import { probeTools, runtimeTrees } from "../../src/sandbox/local/probe.js";
import { packageRoot } from "../../src/util/package-root.js";
import { silentLogger } from "../../src/util/logger.js";
import { FS_PROBE, holderProgram, probeResult, realLeaks, type ProbeResult } from "./fs-probe.js";

/**
 * A world-readable directory inside /usr that the test names as hidden (it stands for datasets kept under
 * /usr/local/share), and one beside it that stays shown: existing ones, so the test writes nothing to /usr.
 */
const HIDDEN_IN_USR = "/usr/share/doc";
const SHOWN_IN_USR = "/usr/share/common-licenses";
const datasets = process.env["A2A_BENCH_DATASETS"] ?? join(packageRoot, "..", "shared", "datasets");
/** Top-level names a bwrap job's root holds besides what its own mounts and runtimes add. */
const SYSTEM_TOP = [
  "bin",
  "dev",
  "etc",
  "lib",
  "lib32",
  "lib64",
  "libx32",
  "proc",
  "root",
  "sbin",
  "tmp",
  "usr",
  "var",
];
/** The interpreter trees the sandbox binds (not walked: their files are the runtime's own). */
const runtimes = (await probeTools().then(runtimeTrees)).filter((r) => !r.startsWith("/usr/"));
const ETC_NAMES = new Set([...ETC_ALLOWLIST.map((e) => e.split("/")[0]!), "python3"]);

describe("a bwrap job sees only the allowlist of the host", () => {
  let sb: Sandbox;
  const made: string[] = [];
  let scratch: string;
  let results: string;
  let hostTmpSecret: string;
  let sensitive: string[];

  beforeAll(async () => {
    // A run's output dir under the checkout (as the reward-hacking suite keeps them), with a results file.
    mkdirSync(join(packageRoot, ".cache"), { recursive: true });
    scratch = mkdtempSync(join(packageRoot, ".cache", "fsview-"));
    made.push(scratch);
    results = join(scratch, "out");
    mkdirSync(results);
    writeFileSync(join(results, "results.json"), '{"rows":[{"id":"HumanEval/0","passed":true}]}');
    hostTmpSecret = mkdtempSync("/tmp/a2a-fsview-");
    writeFileSync(join(hostTmpSecret, "secret.txt"), "x");
    made.push(hostTmpSecret);
    // HOME's own entries (nothing is written there: other suites watch /root and /usr for changes), but
    // the directories leading to a runtime bound below it (pyenv's), which the sandbox shows on purpose.
    const home = homedir();
    const homeEntries = (existsSync(home) ? readdirSync(home) : [])
      .map((e) => join(home, e))
      .filter((p) => !runtimes.some((r) => r === p || r.startsWith(p + "/")));
    sensitive = [
      join(packageRoot, "package.json"),
      packageRoot,
      datasets,
      join(datasets, "humaneval", "HumanEval.jsonl.gz"),
      results,
      join(results, "results.json"),
      ...homeEntries,
      join(hostTmpSecret, "secret.txt"),
      "/etc/shadow",
      "/etc/gshadow",
      "/etc/ssl/private",
      // Stands for a dataset an operator keeps inside an allowlisted tree: named hidden below, it is masked.
      HIDDEN_IN_USR,
    ];
    sb = await createSandbox({
      backend: "local",
      logger: silentLogger(),
      concurrency: 4,
      hiddenPaths: [datasets, results, packageRoot, HIDDEN_IN_USR],
    });
    expect(sb.isolation).toBe("bwrap");
  });
  afterAll(async () => {
    await sb?.close();
    for (const p of made) rmSync(p, { recursive: true, force: true });
  });

  /** The probe as a request: `skip` = trees not walked (the system trees and the runtimes). */
  const probe = (marker: string, over: Partial<ExecRequest> = {}): ExecRequest => ({
    language: "python",
    code: FS_PROBE,
    timeoutMs: 30_000,
    env: {
      A2A_PROBE: JSON.stringify({
        sensitive,
        marker,
        skip: ["/usr", "/proc", "/dev", "/sys", ...runtimes],
      }),
    },
    ...over,
  });

  /** What every probe must show, whatever launched it. */
  function expectAllowlisted(r: ProbeResult, ownTops: string[], ownDirs: string[]): void {
    const allowedTop = new Set([...SYSTEM_TOP, ...ownTops]);
    expect(r.top.filter((t) => !allowedTop.has(t))).toEqual([]);
    for (const must of ["usr", "etc", "tmp", "proc", "dev"]) expect(r.top).toContain(must);
    expect(r.etc.filter((e) => !ETC_NAMES.has(e) && !/^python3\.\d+$/.test(e))).toEqual([]);
    expect(r.etc).not.toContain("shadow");
    // Every readable file outside the system trees is an allowlisted /etc entry or the job's own.
    const own = (p: string): boolean => p.startsWith("/etc/") || ownDirs.some((d) => p === d || p.startsWith(d + "/"));
    expect(r.readable.filter((p) => !own(p))).toEqual([]);
    expect(realLeaks(r.leaks, ownDirs)).toEqual([]);
    expect(r.marker).toEqual([]);
  }

  /** Run the probe beside a concurrent job that holds a marked file, then check both. */
  async function probeBeside(req: (marker: string) => ExecRequest): Promise<ProbeResult> {
    const marker = `a2a-mark-${Math.random().toString(36).slice(2)}`;
    const holder = sb.exec({ language: "python", code: holderProgram(marker, 3), timeoutMs: 20_000 });
    await new Promise((r) => setTimeout(r, 600));
    const out = await sb.exec(req(marker));
    expect((await holder).stdoutTail).toMatch(/^holding /);
    expect(out.infraError).toBeUndefined();
    return probeResult(out.stdoutTail, out.stderrTail);
  }

  test("fork server job: top level, /etc and every readable file are on the allowlist; nothing sensitive opens", async () => {
    const r = await probeBeside((m) => probe(m));
    expectAllowlisted(r, [], ["/tmp"]);
  });

  test("one-shot python with a work dir under the (hidden) checkout: only the work dir of it is there", async () => {
    const work = mkdtempSync(join(scratch, "work-"));
    writeFileSync(join(work, "mine.txt"), "own file");
    const r = await probeBeside((m) => probe(m, { workDir: work }));
    const top = work.split("/")[1]!;
    expectAllowlisted(r, [top], ["/tmp", work]);
    expect(r.readable).toContain(join(work, "mine.txt"));
  });

  test("asRoot job (uid 0 of the host, no capabilities): the same view", async () => {
    const r = await probeBeside((m) => probe(m, { asRoot: true }));
    expectAllowlisted(r, [], ["/tmp"]);
  });

  test("a hidden directory inside /usr is masked (empty); its unhidden neighbour is not", async () => {
    expect(readdirSync(HIDDEN_IN_USR).length).toBeGreaterThan(0);
    const out = await sb.exec({
      language: "bash",
      timeoutMs: 10_000,
      code: `ls -A ${HIDDEN_IN_USR} | wc -l; ls ${SHOWN_IN_USR} | wc -l`,
    });
    const [hidden, shown] = out.stdoutTail.trim().split("\n").map(Number);
    expect(hidden).toBe(0);
    expect(shown).toBe(readdirSync(SHOWN_IN_USR).length);
  });

  test("node job: the same top level; the checkout, datasets, results and HOME do not open", async () => {
    const code = [
      "const fs = require('fs');",
      `const sensitive = ${JSON.stringify(sensitive)};`,
      "const leaks = {};",
      "for (const p of sensitive) { try { leaks[p] = fs.statSync(p).isDirectory() ? fs.readdirSync(p) : (fs.readFileSync(p), true); } catch {} }",
      "console.log(JSON.stringify({ top: fs.readdirSync('/').sort(), leaks }));",
    ].join("\n");
    const out = await sb.exec({ language: "node", code, timeoutMs: 10_000 });
    const r = JSON.parse(out.stdoutTail) as Pick<ProbeResult, "top" | "leaks">;
    expect(r.top.filter((t) => !SYSTEM_TOP.includes(t))).toEqual([]);
    expect(realLeaks(r.leaks, [])).toEqual([]);
  });
});
