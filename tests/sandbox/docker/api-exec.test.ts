/**
 * The exec over the Engine API against a stand-in engine on a unix socket (no container engine needed):
 * the framed stream, the exit code from the inspect, the engine's refusals as the command's (it never
 * ran), an unreachable engine as ours (infraError), the limit killing through `stop`. Never rejects.
 */
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiExec, type ApiExecOptions } from "../../../src/sandbox/docker/api-exec.js";
import { engineSocketPath } from "../../../src/sandbox/docker/engine-api.js";
import { frame } from "../../support/engine-frames.js";

let dir: string;
let server: Server | undefined;
/** Hijacked sockets: the server no longer tracks them as connections. */
const held = new Set<Socket>();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "a2a-api-exec-"));
});
afterEach(async () => {
  for (const s of held) s.destroy();
  held.clear();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

interface Script {
  create?: { status: number; body: unknown };
  /** Frames written after the 101, then the stream ends (unless `hold`). */
  frames?: Buffer[];
  hold?: boolean;
  exitCode?: number;
}

/** A stand-in engine: exec create → 201 {Id}, exec start → 101 + frames, exec inspect → the exit code. */
async function standIn(script: Script): Promise<{ socket: string; calls: string[] }> {
  const calls: string[] = [];
  const socket = join(dir, "engine.sock");
  server = createServer((req, res) => {
    calls.push(`${req.method} ${req.url}`);
    req.resume();
    req.on("end", () => {
      if (req.url?.endsWith("/exec") && req.method === "POST") {
        const c = script.create ?? { status: 201, body: { Id: "e1" } };
        res.writeHead(c.status, { "content-type": "application/json" }).end(JSON.stringify(c.body));
      } else if (req.url === "/exec/e1/json") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ Running: false, ExitCode: script.exitCode ?? 0 }));
      } else res.writeHead(404).end(JSON.stringify({ message: "no such route" }));
    });
  });
  server.on("upgrade", (req, sock) => {
    calls.push(`UPGRADE ${req.url}`);
    held.add(sock as Socket);
    sock.write(
      "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n",
    );
    for (const f of script.frames ?? []) sock.write(f);
    if (!script.hold) sock.end();
  });
  await new Promise<void>((r) => server!.listen(socket, () => r()));
  return { socket, calls };
}

const opts = (extra: Partial<ApiExecOptions> = {}): ApiExecOptions => ({
  timeoutMs: 5000,
  maxOutputBytes: 1024,
  separate: true,
  stop: () => Promise.resolve(),
  ...extra,
});

describe("apiExec", () => {
  test("create, start, inspect: streams apart (or interleaved), the exit code the engine recorded", async () => {
    const frames = [frame(1, "out\n"), frame(2, "err\n"), frame(1, "more\n")];
    const { socket, calls } = await standIn({ frames, exitCode: 3 });
    const r = await apiExec(socket, "c1", ["true"], opts());
    expect(r).toMatchObject({
      output: "out\nmore\n",
      stderr: "err\n",
      exitCode: 3,
      timedOut: false,
      isCanceled: false,
    });
    expect(calls).toEqual(["POST /containers/c1/exec", "UPGRADE /exec/e1/start", "GET /exec/e1/json"]);
    const mixed = await apiExec(socket, "c1", ["true"], opts({ separate: false }));
    expect(mixed).toMatchObject({ output: "out\nerr\nmore\n", exitCode: 3 });
    expect(mixed.stderr).toBeUndefined();
  });

  test("output is bounded to its tail", async () => {
    const { socket } = await standIn({ frames: [frame(1, "x".repeat(5000) + "END")] });
    const r = await apiExec(socket, "c1", ["true"], opts({ maxOutputBytes: 100 }));
    expect(r.output).toHaveLength(100);
    expect(r.output.endsWith("END")).toBe(true);
  });

  test("the engine refusing the exec (container not running) is the command never run, not ours", async () => {
    const { socket } = await standIn({ create: { status: 409, body: { message: "container c1 is not running" } } });
    const r = await apiExec(socket, "c1", ["true"], opts());
    expect(r).toMatchObject({ exitCode: null, timedOut: false });
    expect(r.infraError).toBeUndefined();
    expect(r.stderr).toMatch(/409: container c1 is not running/);
  });

  test("no engine at the socket is ours (infraError), never a rejection", async () => {
    const r = await apiExec(join(dir, "absent.sock"), "c1", ["true"], opts());
    expect(r).toMatchObject({ exitCode: null });
    expect(r.infraError).toMatch(/absent\.sock/);
  });

  test("the limit and the abort call stop once, report the reason, keep the output so far", async () => {
    const { socket } = await standIn({ frames: [frame(1, "partial")], hold: true });
    const stops: string[] = [];
    const stop = (why: "timeout" | "cancel") => (stops.push(why), Promise.resolve());
    const t = await apiExec(socket, "c1", ["sleep"], opts({ timeoutMs: 300, stop }));
    expect(t).toMatchObject({ exitCode: null, timedOut: true, isCanceled: false, output: "partial" });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const c = await apiExec(socket, "c1", ["sleep"], opts({ signal: ac.signal, stop }));
    expect(c).toMatchObject({ exitCode: null, timedOut: false, isCanceled: true });
    expect(stops).toEqual(["timeout", "cancel"]);
  });
});

describe("engineSocketPath", () => {
  test("a unix DOCKER_HOST with the docker CLI; anything else goes through the CLI", () => {
    expect(engineSocketPath({ DOCKER_HOST: "unix:///run/x.sock" })).toBe("/run/x.sock");
    expect(engineSocketPath({ DOCKER_HOST: "unix:///run/x.sock", A2A_BENCH_DOCKER_CLI: "docker" })).toBe("/run/x.sock");
    expect(engineSocketPath({ DOCKER_HOST: "unix:///run/x.sock", A2A_BENCH_DOCKER_CLI: "podman" })).toBeNull();
    expect(engineSocketPath({ DOCKER_HOST: "tcp://127.0.0.1:2375" })).toBeNull();
    expect(engineSocketPath({ DOCKER_HOST: "unix://relative.sock" })).toBeNull();
    expect(engineSocketPath({})).toBeNull();
  });
});
