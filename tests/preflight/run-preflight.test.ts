import { describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { runPreflight, type PreflightDeps } from "../../src/preflight/run-preflight.js";
import { parsePreflightArgs } from "../../src/cli/preflight.js";
import { loadDatasetItems } from "../../src/preflight/default-probes.js";
import { defaultScenarioDir } from "../../src/util/package-root.js";
import type { SmokeResult } from "../../src/smoke/run-smoke.js";
import { probeParticipant, probeSandbox, toolProber } from "../../src/preflight/default-probes.js";
import { checkSandbox } from "../../src/preflight/checks.js";
import { testEngine } from "../support/container-engine.js";
import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";

function sink(): { stream: Writable; text: () => string } {
  let text = "";
  return {
    stream: new Writable({
      write(chunk, _enc, cb) {
        text += chunk.toString();
        cb();
      },
    }),
    text: () => text,
  };
}

const okSmoke: SmokeResult = {
  exitCode: 0,
  finalState: "completed",
  responsePath: "/r/response.json",
  bundlePath: "/r/bundle.json",
  recordPath: undefined,
  bundle: {},
  problems: [],
  methods: ["message/stream"],
};

/** Every probe healthy; tests break one at a time. */
function deps(over: Partial<PreflightDeps> = {}): PreflightDeps & { smokeCalls: unknown[] } {
  const smokeCalls: unknown[] = [];
  return {
    nodeVersion: "v20.19.0",
    env: {},
    loadDataset: async () => 12,
    probeSandbox: async () => ({ isolation: "bwrap", warnings: [], output: "42\n" }),
    probeTools: async () => [{ tool: "python3", ok: true, detail: "/usr/bin/python3", fix: "" }],
    probeParticipant: async () => {},
    knownBenchmarks: () => ["humaneval"],
    resolveCommand: () => undefined,
    cliEntry: process.execPath, // any existing file
    portFree: async () => true,
    cardServed: async () => false,
    portHolder: async () => ({ kind: "unknown" }),
    smoke: async (o) => {
      smokeCalls.push(o);
      return okSmoke;
    },
    smokeCalls,
    ...over,
  };
}

const options = parsePreflightArgs(["--scenario", defaultScenarioDir]);

describe("preflight", () => {
  it("passes every check in order and ends ready_for_full_run=true", async () => {
    const out = sink();
    const d = deps();
    const report = await runPreflight(options, d, out.stream);
    expect(report.ready).toBe(true);
    expect(report.results.map((r) => r.name)).toEqual([
      "node",
      "dataset",
      "sandbox",
      "tools",
      "sandbox_env",
      "runner",
      "participant",
      "ports",
      "smoke",
    ]);
    expect(out.text()).toContain("✓ sandbox: local sandbox ran print(6*7) → 42, isolation=bwrap");
    expect(out.text().trimEnd().endsWith("ready_for_full_run=true")).toBe(true);
    expect(d.smokeCalls).toEqual([expect.objectContaining({ start: true, benchmark: "humaneval", samples: 2 })]);
  });

  it("a missing dataset is a ✗ with the fix, and the run is not ready", async () => {
    const out = sink();
    const report = await runPreflight(
      { ...options, dataset: "/nonexistent/HumanEval.jsonl.gz" },
      deps({ loadDataset: loadDatasetItems }), // the real loader
      out.stream,
    );
    expect(report.ready).toBe(false);
    expect(out.text()).toMatch(/✗ dataset: humaneval dataset "\/nonexistent\/HumanEval.jsonl.gz" unusable: .*ENOENT/);
    expect(out.text()).toContain("→ pass --dataset sample");
    expect(out.text()).toContain("ready_for_full_run=false");
  });

  it("the embedded sample parses through the real loader", async () => {
    expect(await loadDatasetItems("humaneval", "sample")).toBeGreaterThanOrEqual(10);
  });

  it("no sandbox is a ✗ naming why", async () => {
    const out = sink();
    const report = await runPreflight(
      options,
      deps({
        probeSandbox: async () => {
          throw new Error("neither bwrap nor unshare nor python3 available");
        },
      }),
      out.stream,
    );
    expect(report.ready).toBe(false);
    expect(out.text()).toContain(
      "✗ sandbox: local sandbox unavailable: neither bwrap nor unshare nor python3 available",
    );
    expect(out.text()).toContain("→ install python3 and bubblewrap");
  });

  it("a sandbox that isolates nothing is not ready", async () => {
    const out = sink();
    const report = await runPreflight(
      options,
      deps({ probeSandbox: async () => ({ isolation: "none", warnings: ["no isolation"], output: "42" }) }),
      out.stream,
    );
    expect(report.ready).toBe(false);
    expect(out.text()).toContain("✗ sandbox: local sandbox works but isolates nothing (isolation=none)");
  });

  it("sandbox=e2b without E2B_API_KEY fails both the sandbox and the key check", async () => {
    const out = sink();
    const report = await runPreflight({ ...options, sandbox: "e2b" }, deps(), out.stream);
    expect(report.results.filter((r) => !r.ok).map((r) => r.name)).toEqual(["sandbox", "sandbox_env"]);
    expect(out.text()).toContain("→ export E2B_API_KEY=");
  });

  it("an old node, an unregistered benchmark and a missing smi-inhabit are reported", async () => {
    const out = sink();
    await runPreflight({ ...options, benchmark: "smi-inhabit" }, deps({ nodeVersion: "v18.20.0" }), out.stream);
    expect(out.text()).toContain("✗ node: v18.20.0 is older than 20.18.1");
    expect(out.text()).toContain('✗ runner: smi-inhabit runner "smi-inhabit" not found on PATH');
  });

  it("a port held by a non-agent blocks the smoke run (and nothing is killed)", async () => {
    const out = sink();
    const d = deps({ portFree: async (_h, port) => port !== 9999, cardServed: async () => false });
    const report = await runPreflight(options, d, out.stream);
    expect(report.ready).toBe(false);
    expect(out.text()).toContain("✗ ports: 127.0.0.1:9999 in use by something that is not an agent");
    expect(out.text()).toContain("✗ smoke: not run: ports blocked");
    expect(d.smokeCalls).toEqual([]);
  });

  it("a running agent a2a-bench started: the fix is `a2a-bench scenario --kill`", async () => {
    const out = sink();
    const d = deps({
      portFree: async (_h, port) => port !== 9999,
      cardServed: async () => true,
      portHolder: async (dir, port) => {
        expect(dir).toBe(defaultScenarioDir.replace(/\/$/, ""));
        return { kind: "scenario", pid: 4242, agent: `agent-on-${port}` };
      },
    });
    const report = await runPreflight(options, d, out.stream);
    expect(report.ready).toBe(false);
    expect(out.text()).toContain("✗ ports: some agents run and others do not");
    expect(out.text()).toContain(
      "127.0.0.1:9999 is the agent-on-9999 agent a2a-bench started (pid 4242, in .scenario_pids.json): `a2a-bench scenario --kill` stops it",
    );
    expect(d.smokeCalls).toEqual([]);
  });

  it("a running agent started by hand: its pid and command, not `scenario --kill` (which would not stop it)", async () => {
    const out = sink();
    const d = deps({
      portFree: async (_h, port) => port !== 9999,
      cardServed: async () => true,
      portHolder: async () => ({ kind: "process", pid: 4343, command: "node dist/cli.js purple --port 9999" }),
    });
    await runPreflight(options, d, out.stream);
    expect(out.text()).toContain(
      "127.0.0.1:9999 is held by pid 4343 (node dist/cli.js purple --port 9999), not started by `a2a-bench scenario`",
    );
    expect(out.text()).not.toContain("--kill");
  });

  it("uses running healthy agents instead of starting them", async () => {
    const out = sink();
    const d = deps({ portFree: async () => false, cardServed: async () => true });
    await runPreflight(options, d, out.stream);
    expect(d.smokeCalls).toEqual([expect.objectContaining({ start: false })]);
  });

  it("a failed smoke is a ✗ pointing at the saved response", async () => {
    const out = sink();
    const report = await runPreflight(
      options,
      deps({
        smoke: async () => ({ ...okSmoke, exitCode: 1, finalState: "failed", problems: ['task ended "failed"'] }),
      }),
      out.stream,
    );
    expect(report.ready).toBe(false);
    expect(out.text()).toContain('✗ smoke: failed: task ended "failed"');
    expect(out.text()).toContain("→ inspect /r/response.json");
  });

  it("weak isolation (unshare) is a ✗ with the fix, unless --allow-weak-isolation", async () => {
    const weak = deps({
      probeSandbox: async () => ({ isolation: "unshare", warnings: ["bubblewrap unavailable"], output: "42" }),
    });
    const out = sink();
    const report = await runPreflight(options, weak, out.stream);
    expect(report.ready).toBe(false);
    expect(out.text()).toMatch(/✗ sandbox: local sandbox works but isolation=unshare is weak/);
    expect(out.text()).toMatch(/→ install bubblewrap \(`apt-get install -y bubblewrap`\)/);
    expect(out.text()).toContain("ready_for_full_run=false");
    const allowed = await runPreflight({ ...options, allowWeakIsolation: true }, weak, sink().stream);
    expect(allowed.results.find((r) => r.name === "sandbox")?.ok).toBe(true);
  });

  it("a participant that cannot be reached is a ✗ naming the URL and the cause (the real check)", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", () => r()));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/purple`;
    await new Promise<void>((r) => closed.close(() => r()));
    const out = sink();
    const report = await runPreflight({ ...options, agent: url }, deps({ probeParticipant }), out.stream);
    expect(report.ready).toBe(false);
    expect(out.text()).toContain(`✗ participant: participant ${url} is unreachable`);
    expect(out.text()).toMatch(/connection refused/);
    expect(out.text()).toContain(
      `→ start the participant agent or correct its URL; its agent card must be served at ${url}/.well-known/agent-card.json`,
    );
  });

  it("missing tools are a ✗ with the fix: pytest absent for swebench (a PATH whose python3 has no pytest)", async () => {
    const venv = mkdtempSync(join(tmpdir(), "preflight-venv-"));
    try {
      // --copies: the venv's own interpreter (not a symlink back to one that has pytest).
      execFileSync("python3", ["-m", "venv", "--copies", "--without-pip", venv]);
      const env = { ...process.env, PATH: `${join(venv, "bin")}${delimiter}${process.env["PATH"] ?? ""}` };
      const out = sink();
      const report = await runPreflight(
        { ...options, benchmark: "swebench" },
        deps({ probeTools: toolProber(env) }),
        out.stream,
      );
      expect(report.ready).toBe(false);
      expect(out.text()).toMatch(/✗ tools: swebench cannot run: pytest missing/);
      expect(out.text()).toMatch(/→ install pytest for .*preflight-venv-/);
      // The host's own python3 has pytest: the same check passes there.
      const ok = await runPreflight(
        { ...options, benchmark: "swebench" },
        deps({ probeTools: toolProber(process.env) }),
        sink().stream,
      );
      expect(ok.results.find((r) => r.name === "tools")).toMatchObject({ ok: true });
    } finally {
      rmSync(venv, { recursive: true, force: true });
    }
  });

  it("without bwrap on PATH the tools check says so", async () => {
    const report = await runPreflight(
      options,
      deps({ probeTools: toolProber({ PATH: "/nonexistent" }) }),
      sink().stream,
    );
    const tools = report.results.find((r) => r.name === "tools")!;
    expect(tools.ok).toBe(false);
    expect(tools.detail).toMatch(/python3, bwrap missing/);
    expect(tools.fix).toMatch(/apt-get install -y bubblewrap/);
  });

  it("rejects bad flags", () => {
    expect(() => parsePreflightArgs(["--sandbox", "podman"])).toThrow(
      '--sandbox must be one of local, e2b, docker, kubernetes, got "podman"',
    );
    expect(() => parsePreflightArgs(["--benchmark", "mmlu"])).toThrow("--benchmark must be one of");
    expect(() => parsePreflightArgs(["--agent", "nope"])).toThrow("--agent must be an http(s) URL");
    expect(parsePreflightArgs(["--agent", "http://gw:8080/purple", "--allow-weak-isolation"])).toMatchObject({
      agent: "http://gw:8080/purple",
      allowWeakIsolation: true,
    });
  });

  it("--sandbox docker is accepted and checked as docker: the docker CLI, no bwrap, no key, the engine's fix", async () => {
    const docker = parsePreflightArgs(["--scenario", defaultScenarioDir, "--sandbox", "docker"]);
    expect(docker.sandbox).toBe("docker");
    const out = sink();
    const report = await runPreflight(
      docker,
      deps({
        probeSandbox: async () => {
          throw new Error("no container engine answers at unix:///nowhere.sock");
        },
        probeTools: toolProber({ PATH: "/nonexistent" }),
      }),
      out.stream,
    );
    const byName = Object.fromEntries(report.results.map((r) => [r.name, r]));
    expect(byName["sandbox"]).toMatchObject({
      ok: false,
      detail: expect.stringContaining("docker sandbox unavailable"),
    });
    expect(byName["sandbox"]?.fix).toMatch(/scripts\/container-engine\.sh start.*DOCKER_HOST/);
    // HumanEval's checker runs on the host: python3 there; the docker CLI for the backend; no bwrap.
    expect(byName["tools"]?.detail).toBe("humaneval cannot run: docker, python3 missing");
    expect(byName["sandbox_env"]).toMatchObject({ ok: true, detail: "none needed (sandbox=docker)" });
  });

  it("a benchmark needing a capability the backend lacks is a ✗ naming the backends that have it", async () => {
    const report = await runPreflight(
      { ...options, benchmark: "redcode", sandbox: "e2b" },
      deps({ env: { E2B_API_KEY: "k" }, probeTools: toolProber(process.env) }),
      sink().stream,
    );
    const tools = report.results.find((r) => r.name === "tools")!;
    expect(tools.ok).toBe(false);
    expect(tools.detail).toBe(
      "redcode cannot run: sandbox overlays, sandbox userns-root, sandbox host-binds, sandbox host-workdir missing",
    );
    expect(tools.fix).toContain("redcode needs sandbox overlays: use --sandbox local");
  });
});

const engine = await testEngine();

describe.skipIf(engine.env === null)(
  `preflight's docker probe${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    it("runs print(6*7) in a container of the engine and reports isolation docker", async () => {
      const probe = await probeSandbox("docker");
      expect(probe).toMatchObject({ isolation: "docker", output: "42\n" });
      expect(await checkSandbox("docker", {}, async () => probe)).toMatchObject({ ok: true });
    }, 60_000);
  },
);
