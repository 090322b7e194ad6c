/**
 * The docker pool on two real engines: the test engine and a second dockerd started here (its own state
 * dir, the base image copied in), stopped at the end. Placement by free capacity, the images checked at
 * start, an engine killed (SIGKILL of its dockerd) mid-run whose jobs complete on the other, the
 * conformance suite on the pool.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { createDockerPool, type DockerPoolSandbox } from "../../../src/sandbox/docker-pool/pool-sandbox.js";
import { dockerPoolBackend } from "../../../src/sandbox/docker-pool/descriptor.js";
import { docker } from "../../../src/sandbox/docker/docker-cli.js";
import { OWNER_LABEL } from "../../../src/sandbox/docker/owner.js";
import { DEFAULT_LIMITS } from "../../../src/sandbox/limits.js";
import { hostProcesses, newMarker, waitForCount } from "../../../src/sandbox/conformance/observe.js";
import { environmentsOf } from "../../../src/sandbox/environment.js";
import { silentLogger } from "../../../src/util/logger.js";
import { BASE_IMAGE, containersLabelled, testEngine } from "../../support/container-engine.js";
import { startSecondEngine, type SecondEngine } from "../../support/second-engine.js";
import { describeConformance } from "../../support/conformance.js";

/** Pids of this host's processes whose command line holds `marker` as an argument. */
async function pidsOf(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const pid of await readdir("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    const cmd = await readFile(`/proc/${pid}/cmdline`, "latin1").catch(() => "");
    if (cmd.split("\0").includes(marker)) pids.push(Number(pid));
  }
  return pids;
}

const engine = await testEngine();
const first = engine.env?.["DOCKER_HOST"] ?? "";
const owner = `pool-${randomBytes(4).toString("hex")}`;
let second: SecondEngine | undefined;
let secondReady: Promise<SecondEngine> | undefined;
/** Engine start and image copy: a stuck dockerd, not a slow host. */
const ENGINE_MS = 900_000;
/** What a job or an engine round trip may take on a loaded host; tests wait on states, this ends a hang. */
const WAIT_MS = 300_000;

const skip = engine.env === null ? ` (skipped: ${engine.skipReason})` : "";

beforeAll(() => {
  if (engine.env === null) return;
  secondReady = startSecondEngine(engine.env);
  secondReady.then((s) => (second = s)).catch(() => undefined);
}, ENGINE_MS);
afterAll(async () => {
  await secondReady?.catch(() => undefined);
  await second?.stop();
}, ENGINE_MS);

const bothEngines = async () => {
  const s = await secondReady!;
  return [first, s.url];
};

describe.skipIf(engine.env === null)(`docker pool on two engines${skip}`, () => {
  it(
    "places work by free capacity: two jobs run at once on the two engines, a third waits for room",
    async () => {
      const [a, b] = await bothEngines();
      const pool = await createDockerPool({
        hosts: [
          { url: a!, capacity: 1 },
          { url: b!, capacity: 1 },
        ],
        limits: DEFAULT_LIMITS,
        logger: silentLogger(),
        image: BASE_IMAGE,
        owner,
      });
      try {
        const [m1, m2, m3] = [newMarker(), newMarker(), newMarker()];
        const gate = new AbortController();
        const long = (m: string) =>
          pool.exec({ language: "bash", code: `sleep ${m}`, timeoutMs: WAIT_MS }, gate.signal);
        const runs = [long(m1), long(m2)];
        const third = pool.exec({ language: "bash", code: `sleep ${m3}`, timeoutMs: WAIT_MS }, gate.signal);
        for (const m of [m1, m2]) expect(await waitForCount(hostProcesses, m, (n) => n > 0, WAIT_MS)).toBe(1);
        expect(pool.placement().map((p) => p.busy)).toEqual([1, 1]);
        // Both engines are full: the third has not started.
        expect(await hostProcesses.count(m3)).toBe(0);
        gate.abort();
        const outcomes = await Promise.all([...runs, third]);
        expect(outcomes.every((o) => o.isCanceled)).toBe(true);
        expect(new Set(outcomes.slice(0, 2).map((o) => o.engine))).toEqual(new Set([a, b]));
        const ok = await pool.exec({ language: "python", code: "print('placed')", timeoutMs: WAIT_MS });
        expect(ok).toMatchObject({ exitCode: 0, stdoutTail: "placed\n" });
        expect([a, b]).toContain(ok.engine);
      } finally {
        await pool.close();
      }
    },
    ENGINE_MS,
  );

  it(
    "checks each engine's images at start: an engine without one is excluded and says why; none left refuses",
    async () => {
      const [a, b] = await bothEngines();
      const onlyFirst = `a2a-bench-test/pool-only-first:${randomBytes(4).toString("hex")}`;
      expect((await docker(["tag", BASE_IMAGE, onlyFirst], { env: engine.env! })).exitCode).toBe(0);
      try {
        const pool = await createDockerPool({
          hosts: [{ url: a! }, { url: b! }, { url: "unix:///nonexistent/a2a-pool/docker.sock" }],
          limits: DEFAULT_LIMITS,
          logger: silentLogger(),
          image: BASE_IMAGE,
          images: [BASE_IMAGE, onlyFirst],
          owner,
        });
        try {
          expect(pool.placement().map((p) => p.engine)).toEqual([a]);
          expect(pool.events.map((e) => [e.engine, e.kind])).toEqual(
            expect.arrayContaining([
              [b, "excluded"],
              ["unix:///nonexistent/a2a-pool/docker.sock", "excluded"],
            ]),
          );
          expect(pool.warnings.find((w) => w.includes(b!))).toContain(`image ${onlyFirst} is not in this engine`);
          expect(pool.warnings.find((w) => w.includes("nonexistent"))).toContain("no container engine answers");
        } finally {
          await pool.close();
        }
        await expect(
          createDockerPool({
            hosts: [{ url: b! }],
            limits: DEFAULT_LIMITS,
            logger: silentLogger(),
            image: BASE_IMAGE,
            images: [onlyFirst],
            owner,
          }),
        ).rejects.toMatchObject({ code: "E_SANDBOX_UNAVAILABLE", message: expect.stringContaining(onlyFirst) });
      } finally {
        await docker(["rmi", onlyFirst], { env: engine.env! });
      }
    },
    ENGINE_MS,
  );

  it(
    "an environment runs on one engine, names it, and holds its capacity until closed",
    async () => {
      const [a, b] = await bothEngines();
      const pool = await createDockerPool({
        hosts: [
          { url: a!, capacity: 1 },
          { url: b!, capacity: 1 },
        ],
        limits: DEFAULT_LIMITS,
        logger: silentLogger(),
        image: BASE_IMAGE,
        owner,
      });
      try {
        const envs = environmentsOf(pool, "test");
        const e1 = await envs.openEnvironment({ image: BASE_IMAGE, owner });
        const e2 = await envs.openEnvironment({ image: BASE_IMAGE, owner });
        expect(new Set([e1.engine, e2.engine])).toEqual(new Set([a, b]));
        expect((await e1.exec(["echo", "in-env"], { timeoutMs: WAIT_MS })).output).toBe("in-env\n");
        await e1.close();
        const e3 = await envs.openEnvironment({ image: BASE_IMAGE, owner });
        expect(e3.engine).toBe(e1.engine);
        await Promise.all([e2.close(), e3.close()]);
      } finally {
        await pool.close();
      }
    },
    ENGINE_MS,
  );
});

describeConformance(dockerPoolBackend, {
  ...(engine.env === null ? { skip: engine.skipReason } : {}),
  options: async () => {
    const hosts = await bothEngines();
    return {
      sandboxOptions: { owner, backendOptions: { image: BASE_IMAGE, hosts } },
      image: BASE_IMAGE,
      filesDir: "/a2a-conformance",
      owner,
      resources: async () => {
        const s = await secondReady!;
        const [onFirst, onSecond] = await Promise.all([
          containersLabelled(engine.env!, OWNER_LABEL, owner),
          containersLabelled({ ...engine.env!, DOCKER_HOST: s.url }, OWNER_LABEL, owner),
        ]);
        return [...onFirst, ...onSecond.map((c) => `second:${c}`)];
      },
    };
  },
});

// Last: it kills the second engine.
describe.skipIf(engine.env === null)(`docker pool: an engine dies mid-run${skip}`, () => {
  let pool: DockerPoolSandbox | undefined;
  afterAll(async () => {
    await pool?.close();
  });
  it(
    "SIGKILL of one engine's dockerd: its jobs and those still queued complete on the other, recorded as one event",
    async () => {
      const [a, b] = await bothEngines();
      pool = await createDockerPool({
        hosts: [
          { url: a!, capacity: 2 },
          { url: b!, capacity: 2 },
        ],
        limits: DEFAULT_LIMITS,
        logger: silentLogger(),
        image: BASE_IMAGE,
        owner,
      });
      const markers = Array.from({ length: 6 }, () => newMarker());
      // Each item sleeps until this test ends its `sleep` (from this host, which sees the containers'
      // processes), then reports itself: nothing ends before the engine has died. Items 4 and 5 wait in the
      // pool's queue meanwhile.
      const runs = markers.map((m, i) =>
        pool!.exec({ language: "bash", code: `sleep ${m}\necho item-${i}`, timeoutMs: WAIT_MS }),
      );
      // Four in flight, two on each engine: then the second engine dies.
      for (const m of markers.slice(0, 4)) await waitForCount(hostProcesses, m, (n) => n > 0, WAIT_MS);
      expect(pool.placement().map((p) => [p.engine, p.busy])).toEqual([
        [a, 2],
        [b, 2],
      ]);
      const onB = pool.placement().find((p) => p.engine === b);
      expect(onB?.lost).toBeNull();
      await second!.kill();
      // The jobs on the dead engine fail there; the pool probes it and drops it.
      expect(await pool.nextEvent((e) => e.kind === "lost")).toMatchObject({ engine: b, kind: "lost" });
      // Release each item wherever it runs: its `sleep` is killed each time one shows up (a process left by
      // the dead engine's containers first, then the re-run on the live engine), until the item is done.
      await Promise.all(
        runs.map(async (run, i) => {
          let done = false;
          void run.finally(() => (done = true));
          while (!done) {
            await waitForCount(hostProcesses, markers[i]!, (n) => n > 0, WAIT_MS, run);
            for (const pid of await pidsOf(markers[i]!))
              try {
                process.kill(pid, "SIGKILL");
              } catch {
                // gone meanwhile
              }
            await Promise.race([run, waitForCount(hostProcesses, markers[i]!, (n) => n === 0, WAIT_MS, run)]);
          }
        }),
      );
      const outcomes = await Promise.all(runs);
      expect(outcomes.map((o) => o.stdoutTail)).toEqual(markers.map((_, i) => `item-${i}\n`));
      expect(outcomes.every((o) => o.exitCode === 0 && o.infraError === undefined && !o.isCanceled)).toBe(true);
      expect(outcomes.every((o) => o.engine === a)).toBe(true);
      expect(pool.events).toHaveLength(1);
      expect(pool.placement().find((p) => p.engine === b)?.lost).toContain("no container engine answers");
    },
    ENGINE_MS,
  );
});
