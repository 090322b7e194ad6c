import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { getEventListeners } from "node:events";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { startE2bStandIn, type StandInServer } from "../../src/sandbox/e2b/stand-in-server.js";
import { silentLogger } from "../../src/util/logger.js";
import { FS_PROBE, holderProgram, probeResult } from "./fs-probe.js";

describe("e2b backend (real SDK against the local stand-in server)", () => {
  let executor: Sandbox;
  let standIn: StandInServer;
  const e2b = () => ({ apiKey: "test-key", apiUrl: standIn.url, sandboxUrl: standIn.url });

  beforeAll(async () => {
    executor = await createSandbox({ backend: "local", logger: silentLogger() });
    standIn = await startE2bStandIn({ executor, apiKey: "test-key" });
  });
  afterAll(async () => {
    await standIn.close();
    await executor.close();
  });

  test("missing E2B_API_KEY is a typed error before any request", async () => {
    const saved = process.env["E2B_API_KEY"];
    delete process.env["E2B_API_KEY"];
    const before = { ...standIn.counts };
    try {
      await expect(
        createSandbox({
          backend: "e2b",
          logger: silentLogger(),
          backendOptions: { apiUrl: standIn.url, sandboxUrl: standIn.url },
        }),
      ).rejects.toMatchObject({ code: "E_E2B_API_KEY" });
      expect(standIn.counts).toEqual(before);
    } finally {
      if (saved !== undefined) process.env["E2B_API_KEY"] = saved;
    }
  });

  test("a wrong key is refused by the stand-in as the cloud would", async () => {
    await expect(
      createSandbox({ backend: "e2b", logger: silentLogger(), backendOptions: { ...e2b(), apiKey: "nope" } }),
    ).rejects.toMatchObject({ code: "E_E2B" });
  });

  test("execMany: one sandbox, one request for many solutions, results in order; close kills it", async () => {
    const sb = await createSandbox({ backend: "e2b", logger: silentLogger(), concurrency: 4, backendOptions: e2b() });
    expect(sb.isolation).toBe("e2b");
    expect(standIn.live.size).toBe(1);
    const executesBefore = standIn.counts["POST /execute"] ?? 0;
    const reqs = [
      ...Array.from({ length: 20 }, (_, i) => ({
        language: "python" as const,
        code: `print(${i} + 1)`,
        timeoutMs: 5000,
      })),
      { language: "python" as const, code: "raise ValueError('boom')", timeoutMs: 5000 },
      { language: "python" as const, code: "while True: pass", timeoutMs: 500 },
      { language: "bash" as const, code: "echo from-bash; exit 4", timeoutMs: 5000 },
    ];
    const rs = await sb.execMany(reqs);
    expect((standIn.counts["POST /execute"] ?? 0) - executesBefore).toBe(1);
    expect(rs.slice(0, 20).map((r) => r.stdoutTail)).toEqual(Array.from({ length: 20 }, (_, i) => `${i + 1}\n`));
    expect(rs[20]).toMatchObject({ exitCode: 1, timedOut: false });
    expect(rs[20]!.stderrTail).toContain("ValueError: boom");
    expect(rs[21]!.timedOut).toBe(true);
    expect(rs[22]).toMatchObject({ exitCode: 4, stdoutTail: "from-bash\n" });
    await sb.close();
    expect(standIn.live.size).toBe(0);
    expect(standIn.counts["DELETE /sandboxes/{id}"]).toBeGreaterThanOrEqual(1);
  });

  test("jobs of one batch find nothing of each other (the stand-in runs the driver unprivileged: one job at a time)", async () => {
    const sb = await createSandbox({ backend: "e2b", logger: silentLogger(), concurrency: 4, backendOptions: e2b() });
    const marker = `a2a-mark-${process.pid}-e2b`;
    const probe = {
      language: "python" as const,
      code: FS_PROBE,
      timeoutMs: 20_000,
      env: { A2A_PROBE: JSON.stringify({ sensitive: [], marker, skip: ["/usr", "/proc", "/dev", "/sys", "/root"] }) },
    };
    const [holder, found] = await sb.execMany([
      { language: "python", code: holderProgram(marker, 1), timeoutMs: 20_000 },
      probe,
    ]);
    await sb.close();
    expect(holder!.stdoutTail).toMatch(/^holding /);
    expect(probeResult(found!.stdoutTail, found!.stderrTail).marker).toEqual([]);
  });

  test("many batches on one stop signal: no listener left on it, no listener warning", async () => {
    const sb = await createSandbox({ backend: "e2b", logger: silentLogger(), concurrency: 4, backendOptions: e2b() });
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => void warnings.push(w);
    process.on("warning", onWarning);
    try {
      const ac = new AbortController();
      const rs = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          sb.exec({ language: "python", code: `print(${i})`, timeoutMs: 10_000 }, ac.signal),
        ),
      );
      expect(rs.map((r) => r.stdoutTail)).toEqual(Array.from({ length: 12 }, (_, i) => `${i}\n`));
      await new Promise((r) => setImmediate(r));
      expect(getEventListeners(ac.signal, "abort")).toHaveLength(0);
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await sb.close();
    }
  });

  test("abort cancels the batch and kills the remote sandbox", async () => {
    const sb = await createSandbox({ backend: "e2b", logger: silentLogger(), backendOptions: e2b() });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const rs = await sb.execMany(
      [{ language: "python", code: "import time\ntime.sleep(3)", timeoutMs: 10_000 }],
      ac.signal,
    );
    expect(rs[0]!.isCanceled).toBe(true);
    expect(standIn.live.size).toBe(0);
    await sb.close();
  });
});
