/**
 * The shard engine chosen by the operator: the Swarm job and the Indexed Job built from the environment, a
 * missing setting or an engine that cannot run Swarm jobs named as such; and through `a2a-bench run`
 * (dist/cli.js, so `npm run build` first): `--shard-engine kubernetes` writes the Job's manifest and config
 * and the kubectl steps, `--shard-engine swarm` without a Swarm manager is refused before anything runs.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import {
  checkSwarmManager,
  indexedJobFromEnv,
  parseShardMounts,
  shardJobName,
  swarmJobFromEnv,
} from "../../src/shards/shard-engines.js";
import { swarmServiceArgs } from "../../src/shards/swarm.js";

const CLI = resolve(import.meta.dirname, "..", "..", "dist", "cli.js");
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "shard-engines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const GONE = "unix:///nonexistent/a2a-shard-engines/docker.sock";

/** `a2a-bench run …` with its exit code and output. */
async function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("shard engines from the environment", () => {
  it("the Swarm job: the runner image, the output directory at its own path, more mounts, a network", () => {
    const spec = swarmJobFromEnv(
      { runId: "He_Run.1", benchmark: "humaneval", shards: 3, out: join(dir, "out") },
      { A2A_BENCH_SHARD_IMAGE: "runner:1", A2A_BENCH_SHARD_NETWORK: "host", A2A_BENCH_SHARD_MOUNTS: "/data:/data:ro" },
    );
    expect(spec).toMatchObject({
      name: "a2a-he-run-1",
      image: "runner:1",
      shards: 3,
      cli: "/app/dist/cli.js",
      outInContainer: join(dir, "out"),
      network: "host",
      mounts: [
        { source: join(dir, "out"), target: join(dir, "out") },
        { source: "/data", target: "/data", readOnly: true },
      ],
    });
    const args = swarmServiceArgs(spec);
    expect(args).toEqual(expect.arrayContaining(["--mode", "replicated-job", "--replicas", "3", "--network", "host"]));
    expect(() => swarmJobFromEnv({ runId: "r", benchmark: "humaneval", shards: 2, out: dir }, {})).toThrow(
      "shard_engine swarm needs A2A_BENCH_SHARD_IMAGE",
    );
    expect(() => parseShardMounts("/a")).toThrow('A2A_BENCH_SHARD_MOUNTS: "/a" is not SRC:TARGET[:ro]');
    expect(() => parseShardMounts("/a:/b:rw")).toThrow("is not SRC:TARGET[:ro]");
    expect(shardJobName("x".repeat(100))).toHaveLength(63);
  });

  it("the Indexed Job needs the image and the claim", () => {
    const env = {
      A2A_BENCH_SHARD_IMAGE: "runner:1",
      A2A_BENCH_SHARD_CLAIM: "results",
      A2A_BENCH_SHARD_NAMESPACE: "ev",
    };
    expect(indexedJobFromEnv({ runId: "r1", benchmark: "humaneval", shards: 4 }, env)).toMatchObject({
      name: "a2a-r1",
      namespace: "ev",
      image: "runner:1",
      claim: "results",
      configMap: "a2a-r1-config",
      shards: 4,
    });
    expect(() =>
      indexedJobFromEnv({ runId: "r1", benchmark: "humaneval", shards: 4 }, { A2A_BENCH_SHARD_IMAGE: "runner:1" }),
    ).toThrow("shard_engine kubernetes needs A2A_BENCH_SHARD_CLAIM");
  });

  it("a Swarm job needs an engine that answers", async () => {
    await expect(checkSwarmManager({ ...process.env, DOCKER_HOST: GONE })).rejects.toMatchObject({
      code: "E_SHARD_ENGINE_UNAVAILABLE",
      message: expect.stringContaining(`shard_engine swarm: no container engine answers at ${GONE}`),
    });
  });
});

describe("a2a-bench run --shard-engine", () => {
  const base = ["run", "humaneval", "--agent", "http://127.0.0.1:9/", "--shards", "2"];

  it("kubernetes: the Indexed Job's manifest and the shards' config are written, with the kubectl steps", async () => {
    const out = join(dir, "k8s");
    const r = await cli([...base, "--shard-engine", "kubernetes", "--run-id", "k8s-demo", "--out", out], {
      A2A_BENCH_SHARD_IMAGE: "runner:1",
      A2A_BENCH_SHARD_CLAIM: "results",
    });
    expect(r.code, r.stderr).toBe(0);
    const job = JSON.parse(readFileSync(join(out, "indexed-job.json"), "utf8")) as {
      kind: string;
      spec: Record<string, unknown>;
    };
    expect(job).toMatchObject({ kind: "Job", spec: { completionMode: "Indexed", completions: 2 } });
    const config = JSON.parse(readFileSync(join(out, "shards.config.json"), "utf8")) as Record<string, unknown>;
    expect(config).toMatchObject({ benchmark: "humaneval", num_shards: 2 });
    expect(config["shards"]).toBeUndefined();
    expect(config["shard_engine"]).toBeUndefined();
    expect(r.stdout).toContain("kubectl apply -f");
    expect(r.stdout).toContain("a2a-bench merge /results/k8s-demo/shard-0 /results/k8s-demo/shard-1");
  });

  it("swarm: refused, naming why, when no engine answers or a setting is missing; nothing is run", async () => {
    const out = join(dir, "swarm");
    const gone = await cli([...base, "--shard-engine", "swarm", "--out", out], {
      DOCKER_HOST: GONE,
      A2A_BENCH_SHARD_IMAGE: "runner:1",
    });
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain("E_SHARD_ENGINE_UNAVAILABLE");
    expect(gone.stderr).toContain(`no container engine answers at ${GONE}`);
    const noImage = await cli([...base, "--shard-engine", "swarm", "--out", out], {
      DOCKER_HOST: GONE,
      A2A_BENCH_SHARD_IMAGE: "",
    });
    expect(noImage.stderr).toContain("shard_engine swarm needs A2A_BENCH_SHARD_IMAGE");
    expect(existsSync(join(out, "shard-0"))).toBe(false);
    const one = await cli(["run", "humaneval", "--agent", "http://127.0.0.1:9/", "--shard-engine", "swarm"], {});
    expect(one.code).toBe(2);
    expect(one.stderr).toContain("shard_engine swarm runs shards: give shards above 1");
  });
});
