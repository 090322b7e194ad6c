/**
 * Containment proven through a real run: a green agent process (with secrets
 * in its environment and bearer auth on) starts the built-in HumanEval
 * runner, which executes a participant's "solution" in the local sandbox. The
 * solution tries to read the green's secrets, read the host's /proc, follow
 * symlinks out of its work dir, signal the green agent and the runner by pid
 * and by process group, and finally `kill -9 -1`. The green agent and the
 * runner must survive and the run must end with a valid bundle. Complements
 * tests/sandbox/local-containment.test.ts (the sandbox alone).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { createPurpleApp } from "../../src/purple/app.js";
import type { Solver } from "../../src/purple/solver.js";
import { validateBundle } from "../../src/bundle/validate.js";
import { cliEntry } from "../../src/util/package-root.js";
import { serveOnLoopback } from "../a2a/helpers.js";
import { message, post } from "../conformance/agents.js";
import { psAlive } from "../green/helpers.js";
import { commandOf, descendants } from "./processes.js";

const TOKEN = "green-token-canary-7f3a";
const SECRET = "sk-openai-canary-91bd";

/**
 * The second answer: `kill -9 -1` (every process the solution can signal).
 * With a uid per job it reaches only its own processes: the item is the
 * model's failure, never an infrastructure error. It runs after the probe.
 */
const KILL_ALL_BODY = `    import os\n    os.system("kill -9 -1")\n    return None\n`;

/** The malicious completion (a HumanEval function body); pids are filled in at answer time. */
function probeBody(greenPid: number, runnerPid: number, hostDir: string): string {
  const lines = [
    "import os, json, signal, sys",
    "R = {}",
    `GREEN, RUNNER, HOST = ${greenPid}, ${runnerPid}, ${JSON.stringify(hostDir)}`,
    `R["env_secrets"] = [k for k, v in os.environ.items() if "canary" in v.lower() or k in ("GREEN_AUTH_TOKEN", "OPENAI_API_KEY")]`,
    "def attempt(name, fn):",
    "    try:",
    "        fn()",
    "        R[name] = 'ok'",
    "    except Exception as e:",
    "        R[name] = type(e).__name__",
    `attempt("kill_green", lambda: os.kill(GREEN, signal.SIGKILL))`,
    `attempt("kill_runner", lambda: os.kill(RUNNER, signal.SIGKILL))`,
    `attempt("killpg_green", lambda: os.killpg(GREEN, signal.SIGKILL))`,
    `attempt("killpg_runner", lambda: os.killpg(RUNNER, signal.SIGKILL))`,
    `R["proc_pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())`,
    `attempt("read_green_environ", lambda: open("/proc/%d/environ" % GREEN, "rb").read())`,
    `R["proc_environs_with_canary"] = []`,
    "for p in R['proc_pids']:",
    "    try:",
    "        if b'canary' in open('/proc/%d/environ' % p, 'rb').read().lower(): R['proc_environs_with_canary'].append(p)",
    "    except Exception:",
    "        pass",
    `attempt("symlink_environ", lambda: os.symlink("/proc/%d/environ" % GREEN, "link_environ"))`,
    `attempt("read_via_symlink", lambda: open("link_environ", "rb").read())`,
    `attempt("symlink_host_dir", lambda: os.symlink(HOST, "link_host"))`,
    `attempt("write_via_symlink", lambda: open("link_host/pwned.txt", "w").write("x"))`,
    `attempt("root_symlink", lambda: os.symlink("/", "link_root"))`,
    `attempt("write_via_root_symlink", lambda: open("link_root" + HOST + "/pwned2.txt", "w").write("x"))`,
    `print("PROBE:" + json.dumps(R), flush=True)`,
    "return None",
  ];
  return lines.map((l) => "    " + l).join("\n") + "\n";
}

describe("a solution cannot reach the green agent or the runner (real run, local sandbox)", () => {
  let home: string;
  let hostDir: string;
  let purpleUrl: string;
  let closePurple: () => Promise<void>;
  let greenPid = 0;
  let runnerPid = 0;
  let greenChild: ReturnType<typeof spawn> | undefined;

  let answers = 0;
  const solver: Solver = {
    mode: "escape-probe",
    solve: async () => {
      runnerPid = descendants(greenPid).find((p) => commandOf(p).includes(" run humaneval ")) ?? 0;
      return { text: answers++ === 0 ? probeBody(greenPid, runnerPid, hostDir) : KILL_ALL_BODY };
    },
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), "containment-run-"));
    hostDir = join(home, "host-only");
    mkdirSync(hostDir);
    const served = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
    purpleUrl = served.url;
    closePurple = () => served.close();
  });
  afterAll(async () => {
    greenChild?.kill("SIGKILL");
    await closePurple?.();
    rmSync(home, { recursive: true, force: true });
  });

  test(
    "secrets unseen, host /proc unreadable, symlinks useless, signals refused; green and runner survive",
    { timeout: 90_000 },
    async () => {
      // Its own process group (detached), so killpg(green) in the probe targets only the green agent.
      const child = spawn(process.execPath, [cliEntry, "green", "--port", "0"], {
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          GREEN_RESULTS_DIR: join(home, "results"),
          GREEN_AUTH_TOKEN: TOKEN,
          OPENAI_API_KEY: SECRET,
          SOME_CANARY: "canary-in-green-env",
        },
      });
      greenChild = child;
      greenPid = child.pid!;
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
      const url = `http://127.0.0.1:${port}/`;
      const body = JSON.stringify({
        participants: { agent: purpleUrl },
        config: { benchmark: "humaneval", dataset: "sample", samples: 2, concurrency: 1, run_id: "escape" },
      });
      const r = await post(
        url,
        { jsonrpc: "2.0", id: 1, method: "message/send", params: { message: message(body) } },
        { authorization: `Bearer ${TOKEN}` },
      );
      const task = r.body.result as {
        status: { state: string };
        artifacts?: Array<{ name: string; parts: Array<{ kind: string; data?: Record<string, unknown> }> }>;
      };

      expect(psAlive(greenPid), "green agent alive").toBe(true);
      expect(runnerPid, "runner pid seen while it ran").toBeGreaterThan(0);
      expect(task.status.state, JSON.stringify(r.body).slice(0, 500)).toBe("completed");
      const bundle = task.artifacts
        ?.find((a) => a.name === "evaluation_bundle")
        ?.parts.find((p) => p.kind === "data")?.data;
      expect(validateBundle(bundle)).toEqual([]);
      // The runner was not killed: it exited 0 after evaluating both items.
      expect(bundle?.["exit_code"]).toBe(0);
      expect(bundle?.["status"]).toBe("ok");
      expect(answers).toBe(2);

      const workDir = join(home, "results", "a2a", "escape");
      const meta = JSON.parse(readFileSync(join(workDir, "run_metadata.json"), "utf8")) as {
        sandbox: { isolation: string };
      };
      const results = JSON.parse(readFileSync(join(workDir, "results.json"), "utf8")) as {
        rows: Array<{
          status: string;
          failure_mode?: string;
          samples?: Array<{ stdout_tail?: string; stderr_tail?: string; completion?: string }>;
        }>;
      };
      const killAll = results.rows.find((row) =>
        (row.samples ?? []).some((s) => (s.completion ?? "").includes("kill -9 -1")),
      );
      expect(killAll, "the kill -9 -1 item was scored").toBeDefined();
      expect(killAll!.status).not.toBe("passed");
      expect(killAll!.failure_mode ?? "").not.toMatch(/^infrastructure/);
      const probeLine = results.rows
        // HumanEval points a solution's own prints at stderr (its stdout carries the framed answers).
        .flatMap((row) => (row.samples ?? []).map((s) => `${s.stdout_tail ?? ""}\n${s.stderr_tail ?? ""}`))
        .join("\n")
        .split("\n")
        .find((l) => l.startsWith("PROBE:"));
      expect(probeLine, "the probe ran and printed its findings").toBeDefined();
      const probe = JSON.parse(probeLine!.slice("PROBE:".length)) as Record<string, unknown>;
      console.info(
        `isolation ${meta.sandbox.isolation}; probe: ${JSON.stringify({ ...probe, proc_pids: (probe["proc_pids"] as number[]).length + " pids" })}`,
      );

      expect(probe["env_secrets"]).toEqual([]);
      for (const k of [
        "kill_green",
        "kill_runner",
        "killpg_green",
        "killpg_runner",
        "read_green_environ",
        "read_via_symlink",
        "write_via_symlink",
        "write_via_root_symlink",
      ]) {
        expect(probe[k], k).not.toBe("ok");
      }
      expect(probe["proc_environs_with_canary"]).toEqual([]);
      expect((probe["proc_pids"] as number[]).length).toBeLessThan(20);
      expect(existsSync(join(hostDir, "pwned.txt"))).toBe(false);
      expect(existsSync(join(hostDir, "pwned2.txt"))).toBe(false);
      // The agent still serves after the run.
      expect((await fetch(new URL("health", url))).status).toBe(200);
    },
  );
});
