/**
 * Results directory faults with a real green process: a read-only results
 * dir, and a results file system that fills up mid-run (a real 1 MiB tmpfs,
 * mounted in a private user+mount namespace, so no root is needed and the
 * host sees nothing). Expected: a clear error, no half-written JSON, the
 * checkpoint intact, and the green agent still serving.
 */
import { afterEach, describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn } from "node:child_process";
import { cliEntry } from "../../src/util/package-root.js";
import { readCheckpoint } from "../../src/runner/checkpoint.js";
import { message, rpc } from "../conformance/agents.js";

const FILL_RUNNER = resolve(import.meta.dirname, "..", "fixtures", "hardening", "fill-disk-runner.mjs");

/** Whether `unshare -rm` can mount a tmpfs here (user namespaces enabled). */
function canMountPrivateTmpfs(): string | undefined {
  try {
    execFileSync("unshare", ["-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"], { stdio: "pipe" });
    return undefined;
  } catch (err) {
    return `unshare -rm + mount tmpfs not possible here: ${(err as Error).message.split("\n")[0]}`;
  }
}
const skipReason = canMountPrivateTmpfs();
if (skipReason) console.warn(`SKIPPED disk fault tests: ${skipReason}`);

interface Jailed {
  url: string;
  kill(): void;
  /** Run a shell command inside the green agent's mount namespace (to see its tmpfs). */
  inside(cmd: string): string;
  pid: number;
}

/** Start the green CLI in a private mount namespace with `mountOpts` tmpfs at `resultsDir`. */
async function startJailedGreen(resultsDir: string, mountOpts: string, env: NodeJS.ProcessEnv): Promise<Jailed> {
  const script = `mount -t tmpfs -o ${mountOpts} tmpfs "$1" && exec "$2" "$3" green --port 0`;
  const child = spawn("unshare", ["-rm", "sh", "-c", script, "sh", resultsDir, process.execPath, cliEntry], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...env, GREEN_RESULTS_DIR: resultsDir },
  });
  let out = "";
  child.stderr.on("data", (d: Buffer) => (out += String(d)));
  const port = await new Promise<number>((res, rej) => {
    child.stdout.on("data", (d: Buffer) => {
      out += String(d);
      const m = /"port":(\d+)[^\n]*green agent listening/.exec(out);
      if (m) res(Number(m[1]));
    });
    child.once("exit", (c) => rej(new Error(`green exited ${c}: ${out}`)));
  });
  const pid = child.pid!;
  return {
    url: `http://127.0.0.1:${port}/`,
    pid,
    kill: () => child.kill("SIGKILL"),
    // nsenter into the namespaces of the green process (same user ns: -U, mount ns: -m).
    inside: (cmd) =>
      execFileSync("nsenter", ["-t", String(pid), "-U", "-m", "--preserve-credentials", "sh", "-c", cmd], {
        encoding: "utf8",
      }),
  };
}

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.reverse()) c();
  cleanup = [];
});

describe.skipIf(skipReason !== undefined)("results directory faults (real green process)", () => {
  test(
    "read-only results dir → the task fails with the reason (EROFS), nothing is written, the agent keeps serving",
    { timeout: 30_000 },
    async () => {
      const home = mkdtempSync(join(tmpdir(), "ro-results-"));
      const results = join(home, "results");
      mkdirSync(results);
      const green = await startJailedGreen(results, "ro,size=1m", process.env);
      cleanup.push(
        () => green.kill(),
        () => rmSync(home, { recursive: true, force: true }),
      );
      const body = JSON.stringify({
        participants: { agent: "http://127.0.0.1:9/" },
        config: { benchmark: "humaneval", run_id: "ro" },
      });
      const r = await rpc(green.url, "message/send", { message: message(body) });
      const task = r.body.result as { status: { state: string; message?: { parts: Array<{ text?: string }> } } };
      expect(task.status.state).toBe("failed");
      expect(task.status.message?.parts[0]?.text).toMatch(
        /Assessment failed: cannot create the work dir .*results dir .* is not writable \(EROFS\)/,
      );
      expect(green.inside(`find "${results}" | wc -l`).trim()).toBe("1");
      // Still serving, and /health tells the operator what is wrong (503, not a crash).
      expect((await rpc(green.url, "tasks/get", { id: "none" })).body.error?.code).toBe(-32001);
      const health = await fetch(new URL("health", green.url));
      expect(health.status).toBe(503);
      expect(JSON.stringify(await health.json())).toMatch(/results/i);
    },
  );

  test(
    "results file system full mid-run → clear failure, no half-written JSON, checkpoint intact, agent alive",
    { timeout: 30_000 },
    async () => {
      const home = mkdtempSync(join(tmpdir(), "full-results-"));
      const results = join(home, "results");
      mkdirSync(results);
      const green = await startJailedGreen(results, "size=1m", {
        ...process.env,
        GREEN_SMI_INHABIT_COMMAND: FILL_RUNNER,
      });
      cleanup.push(
        () => green.kill(),
        () => rmSync(home, { recursive: true, force: true }),
      );
      const body = JSON.stringify({
        participants: { agent: "http://127.0.0.1:9/" },
        config: { benchmark: "smi-inhabit", run_id: "full" },
      });
      const r = await rpc(green.url, "message/send", { message: message(body) });
      const task = r.body.result as { status: { state: string; message?: { parts: Array<{ text?: string }> } } };
      const text = task.status.message?.parts.map((p) => p.text ?? "").join(" ") ?? "";
      expect(task.status.state, text).toBe("failed");
      expect(text).toMatch(/ENOSPC|no space left/i);
      // Inspect the full tmpfs from inside the namespace.
      const workDir = join(results, "a2a", "full");
      const listing = green.inside(`ls -a "${workDir}"`).split("\n").filter(Boolean);
      expect(listing.filter((f) => f.endsWith(".tmp"))).toEqual([]);
      for (const f of listing.filter((n) => n.endsWith(".json"))) {
        const content = green.inside(`cat "${workDir}/${f}"`);
        expect(() => JSON.parse(content), `${f} is complete JSON`).not.toThrow();
      }
      expect(listing).not.toContain("evaluation_bundle.json");
      // The checkpoint is the one written before the disk filled up, and still verifies.
      const copy = join(home, "checkpoint.jsonl");
      green.inside(`cat "${workDir}/checkpoint.jsonl" > "${copy}"`);
      const cp = await readCheckpoint(copy);
      expect(cp.rows.map((row) => row.id)).toEqual(["a"]);
      // The runner saw its own rewrite refused; the agent survived the events.jsonl ENOSPC.
      // Alive: /health answers; 503 "starting" only while the isolation probe still runs after the port was bound
      // (seconds on a loaded machine), then 200.
      let health = await fetch(new URL("health", green.url));
      while (health.status === 503) {
        await new Promise((r) => setTimeout(r, 200));
        health = await fetch(new URL("health", green.url));
      }
      expect(health.status).toBe(200);
      expect(existsSync(join(results, "a2a"))).toBe(false); // the host's own dir never saw any of it
      expect(readdirSync(results)).toEqual([]);
      expect(readFileSync(FILL_RUNNER, "utf8")).toMatch(/ENOSPC/);
    },
  );
});
