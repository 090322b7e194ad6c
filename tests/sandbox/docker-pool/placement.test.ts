/**
 * The docker pool's placement when an engine fails, with stand-in engines (no container engine needed): the
 * failing one's docker CLI points at a socket that does not exist, so its probe says it is gone. A job that
 * fails there takes the engine out of placement before anything queued can land on it; the jobs it held,
 * cut short when the pool drops it, run again on the live engine; with no engine left a job is an
 * `infraError` (ours), never a result.
 */
import { describe, expect, it } from "vitest";
import { DockerPoolSandbox, type PoolEngine } from "../../../src/sandbox/docker-pool/pool-sandbox.js";
import type { DockerSandbox } from "../../../src/sandbox/docker/docker-sandbox.js";
import { emptyOutcome } from "../../../src/sandbox/types.js";
import type { ExecOutcome, ExecRequest } from "../../../src/sandbox/types.js";
import { silentLogger } from "../../../src/util/logger.js";

const GONE = "unix:///nonexistent/a2a-pool-placement/docker.sock";

/** Jobs that reached a stand-in engine, and a wait for their count to reach `n` (an event, not a delay). */
const arrivals = {
  count: 0,
  waiters: [] as Array<{ n: number; resolve: () => void }>,
  arrived(): void {
    this.count++;
    for (const w of this.waiters.filter((w) => w.n <= this.count)) w.resolve();
  },
  reach(n: number): Promise<void> {
    return n <= this.count ? Promise.resolve() : new Promise((resolve) => this.waiters.push({ n, resolve }));
  },
};

/** A stand-in engine: `run` decides each job's outcome; close() cuts the jobs still running short, as docker's does. */
function standIn(
  url: string,
  capacity: number,
  run: (req: ExecRequest, closed: Promise<void>) => Promise<ExecOutcome>,
) {
  let close!: () => void;
  const closed = new Promise<void>((r) => (close = r));
  const jobs: string[] = [];
  const sandbox = {
    exec: (req: ExecRequest) => {
      jobs.push(req.code);
      arrivals.arrived();
      return run(req, closed);
    },
    close: () => {
      close();
      return Promise.resolve();
    },
    warmUp: () => undefined,
  } as unknown as DockerSandbox;
  const engine: PoolEngine = {
    url,
    env: { ...process.env, DOCKER_HOST: url },
    sandbox,
    capacity,
    busy: 0,
    lost: null,
    checking: null,
  };
  return { engine, jobs };
}

const job = (code: string): ExecRequest => ({ language: "bash", code, timeoutMs: 60_000 });

describe("docker pool placement when an engine fails", () => {
  it("queued jobs never land on a failing engine; the jobs it held run again on the live one", async () => {
    let releaseA!: () => void;
    const aMayFinish = new Promise<void>((r) => (releaseA = r));
    const a = standIn("unix:///live/docker.sock", 1, async (req) => {
      await aMayFinish;
      return emptyOutcome({ exitCode: 0, stdoutTail: `${req.code}\n` });
    });
    // The dying engine: its first job fails at once (its engine went away); the second runs until the pool
    // drops the engine and closes it, then comes back canceled (as the docker backend's jobs do).
    let failFirst!: () => void;
    const firstMayFail = new Promise<void>((r) => (failFirst = r));
    let onB = 0;
    const b = standIn(GONE, 2, async (_req, closed) => {
      if (onB++ === 0) {
        await firstMayFail;
        return emptyOutcome({ infraError: "docker run exited 125 without a job status: connection reset" });
      }
      await closed;
      return emptyOutcome({ isCanceled: true });
    });
    const pool = new DockerPoolSandbox([a.engine, b.engine], silentLogger());
    try {
      const base = arrivals.count;
      const runs = ["job-0", "job-1", "job-2", "job-3", "job-4"].map((c) => pool.exec(job(c)));
      // Placement by free capacity: job-0..2 go to b (2) and a (1); job-3 and job-4 wait in the queue.
      await arrivals.reach(base + 3);
      expect(pool.placement().map((p) => p.busy)).toEqual([1, 2]);
      expect([...a.jobs, ...b.jobs].sort()).toEqual(["job-0", "job-1", "job-2"]);
      failFirst();
      const lost = await pool.nextEvent((e) => e.kind === "lost");
      expect(lost).toMatchObject({
        engine: GONE,
        kind: "lost",
        reason: expect.stringContaining("no container engine"),
      });
      // Nothing was placed on b after its first failure: it ran only the jobs it had.
      expect(b.jobs).toHaveLength(2);
      releaseA();
      const outcomes = await Promise.all(runs);
      expect(outcomes.map((o) => o.stdoutTail)).toEqual(["job-0\n", "job-1\n", "job-2\n", "job-3\n", "job-4\n"]);
      expect(outcomes.every((o) => o.exitCode === 0 && o.infraError === undefined && !o.isCanceled)).toBe(true);
      expect(outcomes.every((o) => o.engine === a.engine.url)).toBe(true);
      expect(b.jobs).toHaveLength(2);
      expect(pool.events).toHaveLength(1);
    } finally {
      await pool.close();
    }
  });

  it("with no engine left, a job is an error of ours (infraError), never a result or a cancel", async () => {
    const b = standIn(GONE, 2, () =>
      Promise.resolve(emptyOutcome({ infraError: "docker run exited 125 without a job status" })),
    );
    const pool = new DockerPoolSandbox([b.engine], silentLogger());
    try {
      const outcomes = await Promise.all([pool.exec(job("one")), pool.exec(job("two")), pool.exec(job("three"))]);
      for (const o of outcomes) {
        expect(o.isCanceled).toBe(false);
        expect(o.exitCode).toBeNull();
        expect(o.infraError).toContain("no engine of the docker pool is left");
        expect(o.infraError).toContain(GONE);
      }
      // The first failure took the engine out: the job queued behind the first two never reached it.
      expect(b.jobs).toHaveLength(2);
      expect(pool.events.map((e) => e.kind)).toEqual(["lost"]);
    } finally {
      await pool.close();
    }
  });
});
