/**
 * The assessments the docs show by hand work as written: the curl block of docs/operators.md ("An assessment
 * with curl") and the README quick start's block (agents, then `smoke`). Each shell block is run by bash,
 * unchanged but for its two ports (free loopback ports instead of 9999/9998, which another test or agent may
 * hold) and the CLI's path (the built `dist/cli.js` of this checkout, from a scratch directory the run's files go
 * to). Each starts both agents itself, so it must wait for their cards before sending; every saved answer must
 * hold a valid evaluation bundle of a completed task. Needs `npm run build` first.
 */
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
const README_HEADING = "## Quick start";
const CLI = join(packageRoot, "dist", "cli.js");
/** Whole block: two agents' start, one or two 3-item HumanEval assessments, the agents' stop. */
const BLOCK_TIMEOUT_MS = 90_000;

/** The `index`-th shell block under the heading. */
function documentedBlock(page = PAGE, heading = HEADING, index = 0): string {
  const text = readFileSync(join(packageRoot, page), "utf8");
  let under = false;
  let seen = 0;
  for (const l of lines(text)) {
    if (!l.inFence && l.text.startsWith("## ")) under = l.text === heading;
    if (under && l.fence?.lang === "sh" && seen++ === index) return l.fence.body;
  }
  throw new Error(`${page} has no sh block ${index} under "${heading}"`);
}

/** Free loopback ports for the green and the purple agent. */
async function twoPorts(): Promise<[number, number]> {
  const green = await closedPort();
  let purple = await closedPort();
  while (purple === green) purple = await closedPort();
  return [green, purple];
}

/** The block with its ports and the CLI's path substituted. */
function substituted(block: string, green: number, purple: number): string {
  return block
    .replaceAll("9999", String(green))
    .replaceAll("9998", String(purple))
    .replaceAll("node dist/cli.js", `node '${CLI}'`);
}

/** The bundle a saved answer holds, checked against the schemas. */
function savedBundle(path: string): unknown {
  const found = extractBundle(parseSaved(readFileSync(path, "utf8")));
  if (!found.ok) throw new Error(`${path}: ${found.reason}`);
  expect(validateBundle(found.bundle), path).toEqual([]);
  return found.bundle;
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
      const [green, purple] = await twoPorts();
      const ran = await runScript(substituted(documentedBlock(), green, purple), scratch);
      expect(ran.code, ran.output).toBe(0);
      expect(ran.output).toMatch(/valid: humaneval run/);

      const response = JSON.parse(readFileSync(join(scratch, "response.json"), "utf8")) as {
        result?: { status?: { state?: string } };
      };
      expect(response.result?.status?.state, JSON.stringify(response).slice(0, 500)).toBe("completed");
      for (const file of ["response.json", "stream.txt"]) {
        expect(savedBundle(join(scratch, file))).toMatchObject({ benchmark: "humaneval", status: "ok", exit_code: 0 });
      }
    },
    BLOCK_TIMEOUT_MS + 10_000,
  );
});

describe("README.md: the quick start by hand", () => {
  const scratch = mkdtempSync(join(tmpdir(), "a2a-bench-quick-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  test(
    "run as written, smoke gets a valid bundle of a completed task and validate-bundle accepts it",
    async () => {
      expect(existsSync(CLI), `${CLI} is missing: run \`npm run build\` first`).toBe(true);
      const block = documentedBlock("README.md", README_HEADING, 1);
      expect(block).toMatch(/agent-card\.json/);
      const [green, purple] = await twoPorts();
      // smoke takes the participant's URL from its scenario (the package's scenario_smi/, ports 9999/9998): a copy
      // with the same ports substituted is passed with --scenario, the one change beyond the block's own ports.
      const scenario = join(scratch, "scenario");
      cpSync(join(packageRoot, "scenario_smi"), scenario, { recursive: true });
      const toml = join(scenario, "scenario.toml");
      writeFileSync(toml, substituted(readFileSync(toml, "utf8"), green, purple));
      const script = substituted(block, green, purple).replace(/(cli\.js' smoke )/, `$1--scenario '${scenario}' `);
      expect(script).toContain(`smoke --scenario '${scenario}'`);
      const ran = await runScript(script, scratch);
      expect(ran.code, ran.output).toBe(0);
      expect(ran.output).toMatch(/smoke_ok=true/);
      expect(ran.output).toMatch(/valid: humaneval run/);
      expect(savedBundle(join(scratch, "results", "smoke", "mine-evaluation_bundle.json"))).toMatchObject({
        benchmark: "humaneval",
        status: "ok",
        participants: { agent: `http://127.0.0.1:${purple}/` },
      });
    },
    BLOCK_TIMEOUT_MS + 10_000,
  );
});
