/**
 * Shards as a Docker Swarm `replicated-job` on the private engine (needs
 * DOCKER_HOST; skipped without an engine unless
 * A2A_BENCH_REQUIRE_CONTAINER_ENGINE=1). The swarm is initialised for the test
 * on a free port of the loopback (not 2377: another engine of the host may
 * hold it) and left at its end (only when the test made it). Three tasks of the node
 * image run this package (mounted read-only, dist/ built) against a gold
 * purple on the host's loopback (`--network host`); one task is SIGKILLed
 * while an item is in flight, Swarm starts it again, it resumes its shard, and
 * the merge has the same per-item verdicts and score as a single run, each row
 * naming the Swarm task that judged it. Then the same from the command line:
 * `a2a-bench run --shards 3 --shard-engine swarm`, its settings from the
 * environment, one merged run and its bundle.
 */
import { execFile } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, test } from "vitest";
import { docker } from "../../src/sandbox/docker/docker-cli.js";
import { createPurpleApp } from "../../src/purple/app.js";
import type { ServedApp } from "../../src/a2a/server/serve.js";
import { createLogger } from "../../src/util/logger.js";
import { runSwarmShards, SWARM_LABEL } from "../../src/shards/swarm.js";
import { testEngine } from "../support/container-engine.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { holdingGold, rowLines } from "./helpers.js";

const engine = await testEngine();
const ROOT = resolve(import.meta.dirname, "..", "..");
const NODE_IMAGE = "a2a-bench-local/node-base:20";
const run = promisify(execFile);

let purple: (ServedApp & { url: string }) | undefined;
let release: (() => void) | undefined;
let leaveSwarm = false;
const dir = mkdtempSync(join(tmpdir(), "swarm-shards-"));
afterAll(async () => {
  release?.();
  await purple?.close();
  if (leaveSwarm && engine.env) await docker(["swarm", "leave", "--force"], { env: engine.env });
  rmSync(dir, { recursive: true, force: true });
});

/** A port of the loopback nobody listens on now (the swarm's, not Docker's default 2377 another engine may hold). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** The engine as a one-node swarm (made here, on a free port of the loopback, unless it already is one). */
async function ensureSwarm(env: NodeJS.ProcessEnv): Promise<void> {
  const state = await docker(["info", "--format", "{{.Swarm.LocalNodeState}}"], { env });
  if (state.stdout.trim() === "active") return;
  const addr = `127.0.0.1:${await freePort()}`;
  const init = await docker(["swarm", "init", "--listen-addr", addr, "--advertise-addr", addr], { env });
  expect(init.exitCode, init.stderr).toBe(0);
  leaveSwarm = true;
}

interface Row {
  id: string;
  status: string;
  passed: boolean;
  provenance?: { shard: number; worker: string; engine: string };
}

test.skipIf(engine.env === null)(
  `3 shards as a Swarm replicated-job, one task SIGKILLed mid-item, merge into the single run ${engine.skipReason}`,
  async () => {
    const env = engine.env!;
    const image = await docker(["image", "inspect", "--format", "{{.Id}}", NODE_IMAGE], { env });
    expect(image.exitCode, `${NODE_IMAGE} is needed (see .ci/local-node-base)`).toBe(0);
    await ensureSwarm(env);
    const { solver, held } = holdingGold((r) => (release = r));
    purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));

    const single = join(dir, "single");
    await run(
      process.execPath,
      [join(ROOT, "dist", "cli.js"), "run", "humaneval", "--agent", purple.url, "--k", "1"].concat([
        "--out",
        single,
        "--json",
      ]),
    );
    const singleResults = JSON.parse(readFileSync(join(single, "results.json"), "utf8")) as {
      rows: Row[];
      aggregate: Record<string, unknown>;
    };
    held.id = singleResults.rows[4]!.id; // shard 1's second item

    const out = join(dir, "swarm");
    const runId = `swarm-${process.pid}`;
    const shard1 = join(out, "shard-1");
    let killed: string | null = null;
    let killing = false;
    const merged = await runSwarmShards({
      spec: {
        ...{ name: runId, image: NODE_IMAGE, benchmark: "humaneval", runId, shards: 3 },
        ...{ cli: "/app/dist/cli.js", outInContainer: "/out", network: "host" },
        mounts: [
          { source: ROOT, target: "/app", readOnly: true },
          { source: out, target: "/out" },
        ],
      },
      config: {
        ...{ benchmark: "humaneval", agent: purple.url, k: [1], run_id: runId },
        ...{ concurrency: 1, participant_concurrency: 1, sandbox: "local" },
      },
      out,
      env,
      logger: createLogger({ component: "swarm-test", level: "warn" }),
      pollMs: 200,
      onPoll: () => {
        // Once shard 1's first row is on disk and its second item is held: kill its task's container.
        if (killing || rowLines(join(shard1, "checkpoint.jsonl")) < 1) return;
        killing = true;
        void held.arrived.then(async () => {
          const task = (
            JSON.parse(readFileSync(join(shard1, "workers.jsonl"), "utf8").split("\n")[0]!) as { worker: string }
          ).worker;
          const ps = await docker(
            [
              "ps",
              "-q",
              "--filter",
              `label=com.docker.swarm.task.name=${task}`,
              "--filter",
              `label=${SWARM_LABEL}=${runId}`,
            ],
            { env },
          );
          const id = ps.stdout.trim();
          const kill = await docker(["kill", "--signal", "KILL", id], { env });
          if (kill.exitCode === 0) killed = task;
        });
      },
    });
    expect(killed).not.toBeNull();
    const results = JSON.parse(readFileSync(merged.paths.results, "utf8")) as {
      rows: Row[];
      aggregate: Record<string, unknown>;
    };
    const verdicts = (rows: Row[]) => rows.map(({ id, status, passed }) => ({ id, status, passed }));
    expect(verdicts(results.rows)).toEqual(verdicts(singleResults.rows));
    const score = ({ efficiency: _e, median_exec_ms: _m, ...rest }: Record<string, unknown>) => rest;
    expect(score(results.aggregate)).toEqual(score(singleResults.aggregate));
    results.rows.forEach((row, p) => expect(row.provenance).toMatchObject({ shard: p % 3, engine: "swarm" }));
    expect(results.rows[1]!.provenance!.worker).toBe(killed);
    expect(results.rows[4]!.provenance!.worker).not.toBe(killed);
    expect(results.rows[4]!.provenance!.worker).toMatch(new RegExp(`^${runId}\\.1\\.`));
    expect(merged.report.shards[1]!.starts).toHaveLength(2);
    const left = await docker(["service", "ls", "-q", "--filter", `label=${SWARM_LABEL}=${runId}`], { env });
    expect(left.stdout.trim()).toBe("");
  },
  600_000,
);

test.skipIf(engine.env === null)(
  `a2a-bench run --shards 3 --shard-engine swarm: one merged run, each row judged on a Swarm task ${engine.skipReason}`,
  async () => {
    const env = engine.env!;
    await ensureSwarm(env);
    purple ??= await serveOnLoopback((card) => createPurpleApp({ card, solver: holdingGold(() => undefined).solver }));
    const common = ["run", "humaneval", "--agent", purple.url, "--k", "1", "--concurrency", "1", "--sandbox", "local"];
    const single = join(dir, "cli-single");
    await run(process.execPath, [join(ROOT, "dist", "cli.js"), ...common, "--out", single, "--json"]);
    const out = join(dir, "cli-swarm");
    const runId = `cli-swarm-${process.pid}`;
    const { stdout } = await run(
      process.execPath,
      [
        join(ROOT, "dist", "cli.js"),
        ...common,
        "--shards",
        "3",
        "--shard-engine",
        "swarm",
        "--run-id",
        runId,
        "--out",
        out,
      ],
      {
        env: {
          ...env,
          A2A_BENCH_SHARD_IMAGE: NODE_IMAGE,
          A2A_BENCH_SHARD_NETWORK: "host",
          A2A_BENCH_SHARD_MOUNTS: `${ROOT}:/app:ro`,
        },
      },
    ).catch((e: { stdout: string; stderr: string }) => {
      throw new Error(`the sharded run failed: ${e.stderr}`);
    });
    expect(stdout).toContain("3 shards, exit 0");
    const read = (d: string) =>
      JSON.parse(readFileSync(join(d, "results.json"), "utf8")) as { rows: Row[]; aggregate: Record<string, unknown> };
    const [merged, alone] = [read(out), read(single)];
    const verdicts = (rows: Row[]) => rows.map(({ id, status, passed }) => ({ id, status, passed }));
    expect(verdicts(merged.rows)).toEqual(verdicts(alone.rows));
    merged.rows.forEach((row, p) => expect(row.provenance).toMatchObject({ shard: p % 3, engine: "swarm" }));
    const left = await docker(["service", "ls", "-q", "--filter", `label=${SWARM_LABEL}=${runId}`], { env });
    expect(left.stdout.trim()).toBe("");
  },
  600_000,
);
