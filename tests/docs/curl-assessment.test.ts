/**
 * The "by hand" assessment of docs/operators.md ("An assessment with curl") works as written: the shell block is
 * run by bash, unchanged but for its two ports (free loopback ports instead of 9999/9998, which another test or
 * agent may hold) and the CLI's path (the built `dist/cli.js` of this checkout, from a scratch directory the
 * run's files go to). It starts both agents itself, so it must wait for their cards before sending; both saved
 * answers must hold a valid evaluation bundle of a completed task. Needs `npm run build` first.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { extractBundle } from "../../src/bundle/extract.js";
import { parseSaved } from "../../src/cli/validate-bundle.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { packageRoot } from "../../src/util/package-root.js";
import { closedPort } from "../support/closed-port.js";
import { lines } from "../support/markdown.js";

const PAGE = "docs/operators.md";
const HEADING = "## An assessment with curl (JSON-RPC)";
const CLI = join(packageRoot, "dist", "cli.js");
/** Whole block: two agents' start, two 3-item HumanEval assessments, the agents' stop. */
const BLOCK_TIMEOUT_MS = 90_000;

/** The first shell block under the heading. */
function documentedBlock(): string {
  const text = readFileSync(join(packageRoot, PAGE), "utf8");
  let under = false;
  for (const l of lines(text)) {
    if (!l.inFence && l.text.startsWith("## ")) under = l.text === HEADING;
    if (under && l.fence?.lang === "sh") return l.fence.body;
  }
  throw new Error(`${PAGE} has no sh block under "${HEADING}"`);
}

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/** Run a script in its own process group; the group is killed when it ends or overruns, so no agent outlives it. */
function runScript(script: string, cwd: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-e", "-o", "pipefail", "-c", script], {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", LOG_LEVEL: "warn" },
    });
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr.on("data", (b: Buffer) => (output += b.toString()));
    const killGroup = (): void => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(killGroup, BLOCK_TIMEOUT_MS);
    child.on("error", reject);
    // When bash ends (by its last line or by `set -e`), whatever it left running goes with its group; the
    // agents hold its output pipes, so "close" comes only once they are gone.
    child.on("exit", () => {
      clearTimeout(timer);
      killGroup();
    });
    child.on("close", (code, signal) => resolve({ code, signal, output }));
  });
}

describe(`${PAGE}: an assessment with curl`, () => {
  const scratch = mkdtempSync(join(tmpdir(), "a2a-bench-curl-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  test("the block waits for both agent cards and shows failures (curl -f / --fail-with-body)", () => {
    const block = documentedBlock();
    expect(block).toMatch(/agent-card\.json/);
    expect(block).toMatch(/--retry-connrefused/);
    const sends = block.split("\n").filter((l) => /^curl .*http:\/\/127\.0\.0\.1:9999\/ /.test(l));
    expect(sends).toHaveLength(2);
    for (const l of sends) expect(l).toMatch(/--fail-with-body/);
    // The wait comes before the first send.
    expect(block.indexOf("agent-card.json")).toBeLessThan(block.indexOf("message/send"));
  });

  test(
    "run as written, it returns a valid bundle of a completed task, blocking and streamed",
    async () => {
      expect(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`).toBe(true);
      const green = await closedPort();
      let purple = await closedPort();
      while (purple === green) purple = await closedPort();
      const script = documentedBlock()
        .replaceAll("9999", String(green))
        .replaceAll("9998", String(purple))
        .replaceAll("node dist/cli.js", `node '${CLI}'`);
      const ran = await runScript(script, scratch);
      expect(ran.code, ran.output).toBe(0);
      expect(ran.output).toMatch(/valid: humaneval run/);

      const response = JSON.parse(readFileSync(join(scratch, "response.json"), "utf8")) as {
        result?: { status?: { state?: string } };
      };
      expect(response.result?.status?.state, JSON.stringify(response).slice(0, 500)).toBe("completed");
      for (const file of ["response.json", "stream.txt"]) {
        const found = extractBundle(parseSaved(readFileSync(join(scratch, file), "utf8")));
        expect(found.ok, `${file}: ${found.ok ? "" : found.reason}`).toBe(true);
        if (!found.ok) continue;
        expect(validateBundle(found.bundle), file).toEqual([]);
        expect(found.bundle).toMatchObject({ benchmark: "humaneval", status: "ok", exit_code: 0 });
      }
    },
    BLOCK_TIMEOUT_MS + 10_000,
  );
});
