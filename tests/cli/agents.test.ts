import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { cliEntry } from "../../src/util/package-root.js";
import { parseGreenArgs } from "../../src/cli/green.js";
import { parsePurpleArgs } from "../../src/cli/purple.js";

describe("green/purple argument parsing", () => {
  test("defaults and overrides", () => {
    expect(parseGreenArgs([])).toMatchObject({ host: "127.0.0.1", port: 9999, cardUrl: undefined });
    expect(parseGreenArgs(["--host", "0.0.0.0", "--port", "9009", "--card-url", "http://green:9009"])).toMatchObject({ host: "0.0.0.0", port: 9009, cardUrl: "http://green:9009" });
    expect(parsePurpleArgs([])).toMatchObject({ port: 9998, mode: "echo", datasets: [] });
    expect(parsePurpleArgs(["--dataset", "a", "--dataset", "b"]).datasets).toEqual(["a", "b"]);
  });
  test("usage errors", () => {
    expect(() => parseGreenArgs(["--port", "x"])).toThrow(/--port must be an integer/);
    expect(() => parseGreenArgs(["--bogus"])).toThrow(/unknown option --bogus/);
    expect(() => parsePurpleArgs(["--mode", "nope"])).toThrow(/unknown --mode "nope" \(known: echo/);
  });
});

describe("green server process (built dist)", () => {
  test("serves the card with --card-url, /health, A2A-Version; SIGTERM exits 143", async () => {
    const child = spawn(process.execPath, [cliEntry, "green", "--port", "0", "--card-url", "http://green.example:9009/"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GREEN_RESULTS_DIR: "/tmp/a2a-bench-cli-test-results" },
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let buf = "";
        child.stdout.on("data", (d: Buffer) => {
          buf += String(d);
          if (buf.includes("listening")) resolve(buf);
        });
        child.once("exit", () => reject(new Error("green exited early")));
      });
      const port = (JSON.parse(line.split("\n")[0]!) as { port: number }).port;
      const card = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`);
      expect(card.headers.get("a2a-version")).toBe("0.3.0");
      const body = (await card.json()) as { url: string; name: string; protocolVersion: string };
      expect(body).toMatchObject({ url: "http://green.example:9009/", name: "smi-bench-green" });
      const card1 = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
      expect(card1.headers.get("a2a-version")).toBe("1.0");
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: "ok", activeTasks: 0, queued: 0 });
    } finally {
      const code = new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
      child.kill("SIGTERM");
      expect(await code).toBe(143);
    }
  });
});
