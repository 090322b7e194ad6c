import { afterEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMonitorChannel, type MonitorChannel } from "../../../src/benchmarks/redcode/monitor-channel.js";

const dirs: string[] = [];
const channels: MonitorChannel[] = [];
afterEach(async () => {
  for (const c of channels.splice(0)) await c.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function setup(
  go: boolean | (() => Promise<boolean>) = true,
): Promise<{ path: string; channel: MonitorChannel }> {
  const dir = await mkdtemp(join(tmpdir(), "rc-chan-"));
  dirs.push(dir);
  const path = join(dir, "monitor.sock");
  const channel = await openMonitorChannel(path, typeof go === "function" ? go : () => go);
  channels.push(channel);
  return { path, channel };
}

function dial(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(path, () => resolve(s));
    s.once("error", reject);
  });
}

function firstLine(s: Socket): Promise<string> {
  return new Promise((resolve) => {
    let buf = "";
    s.on("data", (d: Buffer) => {
      buf += d.toString();
      if (buf.includes("\n")) resolve(buf.trim());
    });
  });
}

const READY = { event: "ready", setup_errors: [], listener: true, decoys: { sshd: 7 }, interpreter: "python3" };

describe("monitor channel", () => {
  it("accepts exactly one connection, then unlinks its path so nothing started later can connect", async () => {
    const { path, channel } = await setup();
    const monitor = await dial(path);
    const answer = firstLine(monitor);
    monitor.write(JSON.stringify(READY) + "\n");
    expect(await answer).toBe("go");
    expect(existsSync(path)).toBe(false);
    await expect(dial(path)).rejects.toMatchObject({ code: "ENOENT" });
    monitor.write(JSON.stringify({ event: "request", method: "POST", path: "/x", bytes: 3 }) + "\n");
    monitor.write(JSON.stringify({ event: "decoy_exit", name: "sshd", returncode: -9 }) + "\n");
    monitor.write(JSON.stringify({ event: "signal", signum: 15 }) + "\nnot json\n");
    monitor.end(
      JSON.stringify({
        event: "done",
        exit_code: 0,
        timed_out: false,
        elapsed_seconds: 0.1,
        decoys_alive: { sshd: false },
        requests: 1,
      }) + "\n",
    );
    const report = await channel.report;
    expect(report).toMatchObject({
      connected: true,
      went: true,
      requests: [{ method: "POST", path: "/x", bytes: 3 }],
      decoyExits: { sshd: -9 },
      signals: [15],
      garbage: 1,
    });
    expect(report.done?.decoys_alive).toEqual({ sshd: false });
  });

  it("answers abort when the harness rejects the setup, and a connection lost before done leaves done null", async () => {
    const { path, channel } = await setup(false);
    const monitor = await dial(path);
    const answer = firstLine(monitor);
    monitor.write(JSON.stringify({ ...READY, setup_errors: ["listener 127.0.0.1:5758: busy"] }) + "\n");
    expect(await answer).toBe("abort");
    monitor.destroy();
    const report = await channel.report;
    expect(report).toMatchObject({ went: false, done: null });
    expect(report.ready?.setup_errors).toEqual(["listener 127.0.0.1:5758: busy"]);
  });

  it("waits for an async decision (the harness's baseline) before answering; a failed one answers abort; listener faults are kept", async () => {
    let release!: (go: boolean) => void;
    const { path, channel } = await setup(() => new Promise<boolean>((r) => (release = r)));
    const monitor = await dial(path);
    const answer = firstLine(monitor);
    monitor.write(JSON.stringify(READY) + "\n");
    await new Promise((r) => setTimeout(r, 50));
    let answered = false;
    void answer.then(() => (answered = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(answered).toBe(false);
    release(true);
    expect(await answer).toBe("go");
    monitor.end(JSON.stringify({ event: "listener_fault", error: "accept: [Errno 24] Too many open files" }) + "\n");
    const report = await channel.report;
    expect(report).toMatchObject({ went: true, listenerFaults: ["accept: [Errno 24] Too many open files"] });

    const failed = await setup(() => Promise.reject(new Error("baseline")));
    const m2 = await dial(failed.path);
    const a2 = firstLine(m2);
    m2.write(JSON.stringify(READY) + "\n");
    expect(await a2).toBe("abort");
    m2.destroy();
    expect(await failed.channel.report).toMatchObject({ went: false });
  });

  it("close() settles the report when the monitor never connected", async () => {
    const { path, channel } = await setup();
    await channel.close();
    expect(await channel.report).toMatchObject({ connected: false, ready: null, went: false });
    expect(existsSync(path)).toBe(false);
  });
});
