import { describe, expect, test } from "vitest";
import { spawn } from "node:child_process";
import { cliEntry } from "../../src/util/package-root.js";
import { parseGreenArgs } from "../../src/cli/green.js";
import { parsePurpleArgs } from "../../src/cli/purple.js";

describe("green/purple argument parsing", () => {
  test("defaults and overrides", () => {
    expect(parseGreenArgs([])).toMatchObject({ host: "127.0.0.1", port: 9999, cardUrl: undefined });
    expect(parseGreenArgs(["--host", "0.0.0.0", "--port", "9009", "--card-url", "http://green:9009"])).toMatchObject({
      host: "0.0.0.0",
      port: 9009,
      cardUrl: "http://green:9009",
    });
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
  test("serves the card with --card-url, /health, A2A-Version; SIGTERM exits 143; warns of a misspelt setting", async () => {
    const child = spawn(
      process.execPath,
      [cliEntry, "green", "--port", "0", "--card-url", "http://green.example:9009/"],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          GREEN_RESULTS_DIR: "/tmp/a2a-bench-cli-test-results",
          GREEN_MAX_CONCURENT_TASKS: "2",
        },
      },
    );
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += String(d)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let buf = "";
        child.stdout.on("data", (d: Buffer) => {
          buf += String(d);
          if (buf.includes("listening")) resolve(buf);
        });
        child.once("exit", () => reject(new Error("green exited early")));
      });
      const listening = line.split("\n").find((l) => l.includes("listening"))!;
      const port = (JSON.parse(listening) as { port: number }).port;
      const card = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`);
      expect(card.headers.get("a2a-version")).toBe("0.3.0");
      const body = (await card.json()) as { url: string; name: string; protocolVersion: string };
      expect(body).toMatchObject({ url: "http://green.example:9009/", name: "smi-bench-green" });
      const card1 = await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`, {
        headers: { "A2A-Version": "1.0" },
      });
      expect(card1.headers.get("a2a-version")).toBe("1.0");
      // The card is served before the isolation probe has answered: /health says "starting" until it has.
      let health = await fetch(`http://127.0.0.1:${port}/health`);
      // Until the probe has answered (seconds on a loaded machine; the test's timeout bounds the wait).
      while (health.status === 503) {
        expect(await health.json()).toMatchObject({ status: "starting", isolation: { state: "probing" } });
        await new Promise((r) => setTimeout(r, 50));
        health = await fetch(`http://127.0.0.1:${port}/health`);
      }
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({
        status: "ok",
        activeTasks: 0,
        queued: 0,
        isolation: { state: "probed" },
      });
      expect(stderr).toContain(
        "GREEN_MAX_CONCURENT_TASKS is not a green setting and is ignored (did you mean GREEN_MAX_CONCURRENT_TASKS?)",
      );
    } finally {
      const code = new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
      child.kill("SIGTERM");
      expect(await code).toBe(143);
    }
  });

  test("stopped while its isolation probe runs, it never announces itself ready", async () => {
    const child = spawn(process.execPath, [cliEntry, "green", "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GREEN_RESULTS_DIR: "/tmp/a2a-bench-cli-test-results", LOG_LEVEL: "info" },
    });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += String(d);
      if (out.includes("listening")) child.kill("SIGTERM");
    });
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) =>
      child.once("exit", (c, sig) => r([c, sig])),
    );
    const messages = out
      .split("\n")
      .filter(Boolean)
      .map((l) => String((JSON.parse(l) as { msg?: unknown }).msg));
    expect(messages[0]).toMatch(/listening; isolation probe running/);
    // Its signal handlers are installed just after that line: a signal in between ends it by default (seen
    // once on a loaded machine). Either way it must not have announced itself ready.
    if (signal === null) {
      expect(code).toBe(143);
      expect(messages.some((m) => /shutting down/.test(m))).toBe(true);
    } else expect(signal).toBe("SIGTERM");
    expect(messages.filter((m) => /agent ready/.test(m))).toEqual([]);
  });
});

describe("purple openai flags", () => {
  test("parsed and checked at the entry", () => {
    const a = parsePurpleArgs([
      "--mode",
      "openai",
      "--model",
      "m",
      "--base-url",
      "http://127.0.0.1:8000/v1/",
      "--temperature",
      "0.7",
      "--top-p",
      "0.9",
      "--max-tokens",
      "256",
      "--seed",
      "42",
      "--system-prompt",
      "",
      "--timeout-seconds",
      "30",
      "--max-retries",
      "0",
      "--empty-reply-retries",
      "2",
    ]);
    expect(a.openai).toEqual({
      baseUrl: "http://127.0.0.1:8000/v1",
      temperature: 0.7,
      topP: 0.9,
      maxTokens: 256,
      seed: 42,
      systemPrompt: "",
      timeoutSeconds: 30,
      maxRetries: 0,
      emptyReplyRetries: 2,
    });
    expect(parsePurpleArgs(["--mode", "openai", "--max-completion-tokens", "8000"]).openai).toEqual({
      maxCompletionTokens: 8000,
    });
    expect(parsePurpleArgs([]).openai).toEqual({});
  });
  test.each([
    [["--temperature", "2.5"], '--temperature must be a number from 0 to 2, got "2.5"'],
    [["--temperature", ""], '--temperature must be a number from 0 to 2, got ""'],
    [["--top-p", "0"], '--top-p must be a number greater than 0 and at most 1, got "0"'],
    [["--max-tokens", "1.5"], '--max-tokens must be a positive integer, got "1.5"'],
    [["--max-completion-tokens", "0"], '--max-completion-tokens must be a positive integer, got "0"'],
    [
      ["--max-tokens", "10", "--max-completion-tokens", "10"],
      "--max-tokens and --max-completion-tokens are exclusive (reasoning models take only --max-completion-tokens)",
    ],
    [["--seed", "x"], '--seed must be an integer, got "x"'],
    [["--timeout-seconds", "0"], '--timeout-seconds must be a positive number of seconds, got "0"'],
    [["--max-retries=-1"], '--max-retries must be a non-negative integer, got "-1"'],
    [["--empty-reply-retries", "one"], '--empty-reply-retries must be a non-negative integer, got "one"'],
    [
      ["--base-url", "127.0.0.1:8000"],
      '--base-url must be an http(s) URL such as http://127.0.0.1:8000/v1, got "127.0.0.1:8000"',
    ],
  ])("%j is a usage error", (flags, message) => {
    expect(() => parsePurpleArgs(["--mode", "openai", ...flags])).toThrow(message);
  });
  test("openai flags with a mode that has no chat server are a usage error", () => {
    expect(() => parsePurpleArgs(["--mode", "gold", "--temperature", "1", "--seed", "3"])).toThrow(
      "--temperature, --seed apply to --mode openai or agent only",
    );
    expect(() => parsePurpleArgs(["--max-retries", "1"])).toThrow(
      "--max-retries applies to --mode openai or agent only",
    );
  });
  test("agent mode takes the openai flags and its own limits; each checked", () => {
    const args = parsePurpleArgs(
      ["--mode", "agent", "--base-url", "http://127.0.0.1:8000/v1", "--max-steps", "7"].concat([
        "--input-price",
        "0.5",
        "--output-price",
        "1.5",
        "--max-cost",
        "0.25",
      ]),
    );
    expect(args.openai).toEqual({ baseUrl: "http://127.0.0.1:8000/v1" });
    expect(args.agent).toEqual({ maxSteps: 7, inputPricePerMTok: 0.5, outputPricePerMTok: 1.5, maxCostUsd: 0.25 });
    expect(() => parsePurpleArgs(["--mode", "agent", "--max-steps", "0"])).toThrow(
      '--max-steps must be a positive integer, got "0"',
    );
    expect(() => parsePurpleArgs(["--mode", "agent", "--max-cost", "1"])).toThrow(
      "--max-cost needs --input-price and --output-price",
    );
    expect(() => parsePurpleArgs(["--mode", "agent", "--input-price", "1"])).toThrow(
      "--input-price and --output-price go together",
    );
    expect(() => parsePurpleArgs(["--mode", "openai", "--max-steps", "3"])).toThrow(
      "--max-steps applies to --mode agent only",
    );
  });
  test("replay mode needs --trajectory, which no other mode takes", () => {
    expect(parsePurpleArgs(["--mode", "replay", "--trajectory", "t.jsonl"]).trajectory).toBe("t.jsonl");
    expect(() => parsePurpleArgs(["--mode", "replay"])).toThrow("--mode replay needs --trajectory FILE");
    expect(() => parsePurpleArgs(["--mode", "echo", "--trajectory", "t.jsonl"])).toThrow(
      "--trajectory applies to --mode replay only",
    );
  });
});
