/**
 * A port already held on loopback: serving there fails with an error that names the holder (pid and
 * command line) and the flag that moves ours; through the built CLI, for the green and purple agents.
 * The port is really held (a listening socket of this test process).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:net";
import { spawn } from "node:child_process";
import { serveApp } from "../../../src/a2a/server/serve.js";
import { PortInUseError, portHolderText } from "../../../src/a2a/server/port-in-use.js";
import { cliEntry } from "../../../src/util/package-root.js";

let holder: Server;
let port: number;
beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((r) => holder.listen(0, "127.0.0.1", () => r()));
  port = (holder.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((r) => holder.close(() => r())));

/** Runs the built CLI to its end; resolves with its exit code and output. */
function cli(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliEntry, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += String(d)));
    child.once("close", (code) => resolve({ code, stderr }));
  });
}

describe("a port in use", () => {
  it("the holder is named from /proc: this process", () => {
    expect(portHolderText(port)).toMatch(new RegExp(`^pid ${process.pid} \\(.+\\)$`));
    expect(portHolderText(port, { listeningPids: () => [], procInfo: () => undefined })).toBeUndefined();
  });

  it("serveApp rejects with E_PORT_IN_USE naming the holder and the flag", async () => {
    const err = await serveApp("127.0.0.1", port, () => () => undefined, "--port").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortInUseError);
    expect(err).toMatchObject({ code: "E_PORT_IN_USE" });
    expect((err as Error).message).toBe(
      `cannot listen: 127.0.0.1:${port} is in use by ${portHolderText(port)}; stop it, or move this one with --port <other port> (--port 0 picks a free one)`,
    );
  });

  it.each(["green", "purple"])("`a2a-bench %s` on it: exit 1, one line naming the holder and --port", async (agent) => {
    if (!cliEntry) throw new Error("no cli entry");
    const r = await cli([agent, "--host", "127.0.0.1", "--port", String(port)]);
    expect(r.code, r.stderr).toBe(1);
    const line = r.stderr.split("\n").find((l) => l.startsWith(`a2a-bench ${agent}: cannot listen`));
    expect(line, r.stderr).toBeDefined();
    expect(line).toContain(`127.0.0.1:${port} is in use by pid ${process.pid} (`);
    expect(line).toContain("move this one with --port <other port>");
    expect(line).toMatch(/\[E_PORT_IN_USE\]$/);
  });
});
