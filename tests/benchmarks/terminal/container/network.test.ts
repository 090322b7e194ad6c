/**
 * The network of a terminal task's environment, on the container engine: a task that asks for the network
 * (Harbor's default, `allow_internet` left out) is refused, per task and with the reason, unless the
 * operator sets `allow_network`; then its container joins `terminal_network` (inspected on the engine while
 * the episode runs) and its verifier, in the same container, sees the network's interface. A task that says
 * `allow_internet = false` has no network whatever the operator allows.
 *
 * The dev engine runs with `--bridge none`, so the network here is one the test creates (`--internal`): what
 * is checked is the container's network mode and interfaces, never that anything outside is reached.
 * Needs A2A_BENCH_REQUIRE_CONTAINER_ENGINE=1 and DOCKER_HOST; skipped otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { createDockerSandbox } from "../../../../src/sandbox/docker/docker-sandbox.js";
import { docker } from "../../../../src/sandbox/docker/docker-cli.js";
import { DEFAULT_LIMITS } from "../../../../src/sandbox/limits.js";
import { silentLogger } from "../../../../src/util/logger.js";
import { createPurpleApp } from "../../../../src/purple/app.js";
import type { Solver, SolverInput, SolverReply } from "../../../../src/purple/solver.js";
import type { ServedApp } from "../../../../src/a2a/server/serve.js";
import { runBenchmark } from "../../../../src/library/run-benchmark.js";
import type { AssessmentConfig } from "../../../../src/request-config/config.js";
import { OWNER_LABEL } from "../../../../src/sandbox/docker/owner.js";
import { serveOnLoopback } from "../../../a2a/helpers.js";
import { BASE_IMAGE, containersLabelled, testEngine } from "../../../support/container-engine.js";
import type { TerminalRow } from "../../../../src/benchmarks/terminal/row.js";

const engine = await testEngine();

/** The verifier's reward: 1 when the container has an interface besides `lo` (`want = net`), or none (`want = none`). */
const testScript = (want: "net" | "none"): string => `#!/bin/bash
ifaces=$(ls /sys/class/net | grep -v '^lo$' | tr '\\n' ' ')
echo "interfaces: \${ifaces:-none}"
if [ ${want === "net" ? "-n" : "-z"} "$ifaces" ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
`;

async function writeTask(root: string, id: string, environment: string, want: "net" | "none"): Promise<void> {
  const dir = join(root, id);
  for (const d of ["environment", "tests"]) await mkdir(join(dir, d), { recursive: true });
  await writeFile(
    join(dir, "task.toml"),
    `[agent]\ntimeout_sec = 120.0\n\n[verifier]\ntimeout_sec = 60.0\n\n[environment]\nmemory_mb = 256\nstorage_mb = 512\n${environment}`,
  );
  await writeFile(join(dir, "instruction.md"), "List the network interfaces.\n");
  await writeFile(join(dir, "environment", "Dockerfile"), `FROM ${BASE_IMAGE}\nWORKDIR /app\n`);
  await writeFile(join(dir, "tests", "test.sh"), testScript(want));
  await chmod(join(dir, "tests", "test.sh"), 0o755);
}

/** In each episode: on its first turn reads, on the engine, the network mode of the run's containers; then `final`. */
class InspectingSolver implements Solver {
  readonly mode = "scripted";
  readonly modes: string[] = [];
  private readonly turns = new Map<string, number>();
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly runId: () => string,
  ) {}
  async solve(input: SolverInput): Promise<SolverReply> {
    const key = input.contextId ?? "";
    const turn = this.turns.get(key) ?? 0;
    this.turns.set(key, turn + 1);
    if (turn > 0) return { text: JSON.stringify({ kind: "final" }) };
    // The task message names its task (`instance_id`), as a data part or as JSON text.
    const task = /"instance_id"\s*:\s*"([^"]+)"/.exec(`${input.text} ${JSON.stringify(input.data ?? {})}`)?.[1];
    for (const id of await containersLabelled(this.env, OWNER_LABEL, this.runId())) {
      const r = await docker(["inspect", "--format", "{{.HostConfig.NetworkMode}}", id], { env: this.env });
      if (r.exitCode === 0) this.modes.push(`${String(task)}:${r.stdout.trim()}`);
    }
    return { text: JSON.stringify({ kind: "exec_request", command: "ls /sys/class/net" }) };
  }
}

let root: string;
let network: string;
const served: ServedApp[] = [];

describe.skipIf(engine.env === null)(
  `terminal tasks and the network${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    const env = engine.env!;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "a2a-terminal-net-"));
      await writeTask(join(root, "tasks"), "needs-net", "", "net");
      await writeTask(join(root, "tasks"), "offline", "allow_internet = false\n", "none");
      network = `a2a-bench-test-net-${randomBytes(4).toString("hex")}`;
      const r = await docker(["network", "create", "--internal", network], { env });
      expect(r.exitCode, r.stderr).toBe(0);
    });
    afterAll(async () => {
      await Promise.all(served.map((s) => s.close()));
      await docker(["network", "rm", network], { env });
      await rm(root, { recursive: true, force: true });
    });

    async function run(extra: Partial<AssessmentConfig>) {
      let runId = "";
      const solver = new InspectingSolver(env, () => runId);
      const purple = await serveOnLoopback((card) => createPurpleApp({ card, solver }));
      served.push(purple);
      runId = `term-net-${randomBytes(4).toString("hex")}`;
      const result = await runBenchmark(
        {
          benchmark: "terminal",
          run_id: runId,
          dataset: join(root, "tasks"),
          sandbox: "docker",
          agent: purple.url,
          concurrency: 1,
          command_timeout_seconds: 60,
          ...extra,
        },
        {
          out: join(root, runId),
          createSandbox: () => createDockerSandbox({ limits: DEFAULT_LIMITS, logger: silentLogger(), env }),
        },
      );
      expect(await containersLabelled(env, OWNER_LABEL, runId)).toEqual([]);
      return { rows: result.results.rows as TerminalRow[], aggregate: result.results.aggregate, modes: solver.modes };
    }

    it("by default a task asking for the network is refused with the reason, never run or scored; an offline task runs with none", async () => {
      const { rows, aggregate, modes } = await run({});
      const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
      expect(byId["needs-net"]).toMatchObject({
        status: "unsupported",
        reward: null,
        failure_mode: "task_unsupported",
      });
      expect(byId["needs-net"]!.unsupported).toEqual([
        expect.stringMatching(/asks for the network .*allow_internet.* did not allow it \(allow_network: false\)/),
      ]);
      expect(byId["needs-net"]!.turns).toBeUndefined();
      expect(byId["offline"]).toMatchObject({
        status: "passed",
        reward: 1,
        network: "none",
        engine: expect.any(String),
      });
      expect(byId["offline"]!.verifier_output).toContain("interfaces: none");
      expect(modes).toEqual(["offline:none"]);
      expect(aggregate).toMatchObject({
        reward_mean: 1,
        attempts: { scored: 1, errors: 0 },
        unsupported: [{ task_id: "needs-net", reasons: [expect.stringMatching(/allow_network/)] }],
      });
    }, 600_000);

    it("allowed by the operator, the task's container joins terminal_network and its verifier sees it; the offline task still has none", async () => {
      const { rows, modes } = await run({ allow_network: true, terminal_network: network });
      const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
      expect(byId["needs-net"], JSON.stringify(rows, null, 1)).toMatchObject({
        status: "passed",
        reward: 1,
        network,
      });
      expect(byId["needs-net"]!.verifier_output).toMatch(/interfaces: eth0/);
      expect(byId["offline"]).toMatchObject({ status: "passed", reward: 1, network: "none" });
      expect(modes.sort()).toEqual([`needs-net:${network}`, "offline:none"]);
    }, 600_000);
  },
);
