/**
 * The kubernetes backend end to end: the real client (@kubernetes/client-node) against the stand-in
 * API server (tests/support/kube-stand-in.ts), whose pods are containers of the private engine. No
 * cluster is reachable from the test machine: these check our use of the client and the API's wire
 * (paths, label selectors, the exec WebSocket's v5 channels), and the stand-in's model of a kubelet,
 * never a real cluster's scheduler, admission or network plugin.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testEngine, BASE_IMAGE } from "../../support/container-engine.js";
import { startKubeStandIn, type KubeStandIn } from "../../support/kube-stand-in.js";
import { createSandbox, type Sandbox } from "../../../src/sandbox/index.js";
import { createKubernetesSandbox } from "../../../src/sandbox/kubernetes/kubernetes-sandbox.js";
import { openKubernetesEnvironment } from "../../../src/sandbox/kubernetes/kubernetes-environment.js";
import type { KubeCluster } from "../../../src/sandbox/kubernetes/cluster.js";
import { environmentsOf, type Environment } from "../../../src/sandbox/environment.js";
import { DEFAULT_LIMITS } from "../../../src/sandbox/limits.js";
import { silentLogger } from "../../../src/util/logger.js";

const engine = await testEngine();
const WORKDIR = "/workspace";

/** Wait on the stand-in's state (never on time): until `check` holds. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

describe.skipIf(engine.env === null)(`kubernetes backend against the stand-in API server ${engine.skipReason}`, () => {
  let standIn: KubeStandIn;
  let kubeconfig: string;
  let sandbox: Sandbox & { readonly cluster: KubeCluster };
  const opened: Environment[] = [];
  const podsOf = (ns: string) => [...standIn.pods.values()].filter((p) => p.namespace === ns);
  const open = async (o: { files?: Record<string, string>; lifetimeMs?: number } = {}) => {
    const env = await environmentsOf(sandbox, "test").openEnvironment({
      image: BASE_IMAGE,
      owner: "run-1",
      ...(o.files ? { files: { dir: WORKDIR, entries: o.files } } : {}),
      ...(o.lifetimeMs ? { lifetimeMs: o.lifetimeMs } : {}),
    });
    opened.push(env);
    return env;
  };
  const sh = (env: Environment, script: string, timeoutMs = 60_000) => env.exec(["sh", "-c", script], { timeoutMs });

  beforeAll(async () => {
    standIn = await startKubeStandIn({ env: engine.env! });
    const dir = mkdtempSync(join(tmpdir(), "kubeconfig-"));
    kubeconfig = join(dir, "config");
    writeFileSync(kubeconfig, standIn.kubeconfig());
    sandbox = await createKubernetesSandbox({
      limits: { ...DEFAULT_LIMITS, maxOutputBytes: 64 * 1024 },
      logger: silentLogger(),
      concurrency: 4,
      env: {},
      kubernetes: { kubeconfig, assessment: "run-1" },
    });
  });
  afterAll(async () => {
    await Promise.all(opened.map((e) => e.close()));
    await sandbox?.close();
    await standIn?.close();
  });

  test("through the registry and a kubeconfig file: our namespace, its deny-all policy, the token on every request", async () => {
    const viaRegistry = await createSandbox({
      backend: "kubernetes",
      logger: silentLogger(),
      backendOptions: { kubeconfig, assessment: "registry" },
    });
    expect(viaRegistry).toMatchObject({ backend: "kubernetes", isolation: "kubernetes" });
    expect([...viaRegistry.capabilities].sort()).toEqual(["environments", "images"]);
    await viaRegistry.close();
    const ns = sandbox.cluster.namespace;
    expect(ns).toMatch(/^a2a-bench-run-1-[0-9a-f]{8}$/);
    expect(standIn.namespaces.get(ns)).toMatchObject({
      metadata: {
        labels: {
          "pod-security.kubernetes.io/enforce": "restricted",
          "a2a-bench.dev/assessment": sandbox.cluster.assessment,
        },
      },
    });
    const policy = [...standIn.policies.values()].find(
      (p) => (p["metadata"] as { namespace: string }).namespace === ns,
    );
    expect(policy?.["spec"]).toMatchObject({ policyTypes: ["Ingress", "Egress"], ingress: [], egress: [] });
  });

  test("HumanEval-like jobs: a right and a wrong solution, stdin, env and files; non-root, read-only, no network", async () => {
    const check = "def add(a, b):\n    return a + b\n";
    const tests = "\nassert add(2, 3) == 5\nassert add(-1, 1) == 0\nprint('passed')\n";
    const probe = [
      "import os, socket, sys",
      "print('uid', os.getuid(), sys.stdin.read(), os.environ['K'], open('data/in.txt').read())",
      "try:\n    open('/usr/pwned', 'w')\n    print('root writable')\nexcept OSError as e:\n    print('ro', e.errno)",
      "s = socket.socket()\ns.settimeout(5)\ntry:\n    s.connect(('1.1.1.1', 80))\n    print('net open')\nexcept OSError as e:\n    print('no net')",
    ].join("\n");
    const [right, wrong, env] = await sandbox.execMany([
      { language: "python", code: check + tests, timeoutMs: 60_000 },
      { language: "python", code: "def add(a, b):\n    return a - b\n" + tests, timeoutMs: 60_000 },
      {
        language: "python",
        code: probe,
        timeoutMs: 60_000,
        stdin: "IN",
        env: { K: "V" },
        files: { "data/in.txt": "F" },
      },
    ]);
    expect(right).toMatchObject({ exitCode: 0, timedOut: false, stdoutTail: "passed\n" });
    expect(right!.infraError).toBeUndefined();
    expect(wrong).toMatchObject({ exitCode: 1, timedOut: false });
    expect(wrong!.stderrTail).toContain("AssertionError");
    expect(env!.infraError).toBeUndefined();
    const lines = env!.stdoutTail.trim().split("\n");
    expect(lines[0]).toMatch(/^uid (\d+) IN V F$/);
    expect(Number(/^uid (\d+)/.exec(lines[0]!)![1])).toBeGreaterThanOrEqual(200_000);
    expect(lines.slice(1)).toEqual(["ro 30", "no net"]);
    // The pods were made as the manifests say, and are gone.
    const jobs = [...standIn.received.entries()].filter(([k]) => k.startsWith(`${sandbox.cluster.namespace}/a2a-job-`));
    expect(jobs.length).toBeGreaterThanOrEqual(3);
    expect(jobs[0]![1]).toMatchObject({ spec: { automountServiceAccountToken: false, activeDeadlineSeconds: 180 } });
    expect(podsOf(sandbox.cluster.namespace).filter((p) => p.name.startsWith("a2a-job-"))).toEqual([]);
    // Each command went through the exec subresource over v5, with the argv as repeated `command` words.
    const execs = standIn.requests.filter((r) => r.path.endsWith("/exec"));
    expect(execs.length).toBeGreaterThanOrEqual(3);
    expect(execs[0]!.protocols?.[0]).toBe("v5.channel.k8s.io");
    expect(execs[0]!.chosen).toBe("v5.channel.k8s.io");
    expect(execs[0]!.query).toMatch(/[?&]stdin=true&/);
    expect(execs[0]!.query).toMatch(/&container=sandbox$/);
    expect(new URLSearchParams(execs[0]!.query).getAll("command").slice(0, 3)).toEqual([
      "/usr/bin/python3",
      "-I",
      "-S",
    ]);
  });

  test("a job past its limit is stopped and its pod deleted; an output flood is stopped at the cap", async () => {
    const t0 = Date.now();
    const slow = await sandbox.exec({ language: "bash", code: "echo started; sleep 300", timeoutMs: 3000 });
    expect(slow).toMatchObject({ timedOut: true, exitCode: null, stdoutTail: "started\n" });
    expect(Date.now() - t0).toBeLessThan(120_000);
    const flood = await sandbox.exec({ language: "bash", code: "yes", timeoutMs: 120_000 });
    expect(flood).toMatchObject({ outputLimitExceeded: true, timedOut: false, exitCode: null });
    expect(podsOf(sandbox.cluster.namespace).filter((p) => p.name.startsWith("a2a-job-"))).toEqual([]);
  });

  test("an interactive environment: files first, state kept, streams apart, files in and out without a shell", async () => {
    const env = await open({ files: { "solution.py": "def f():\n    return 41\n", "TASK.md": "make f return 42\n" } });
    const pod = standIn.pods.get(`${sandbox.cluster.namespace}/${env.id}`);
    expect(pod?.network).toBe("none");
    expect(standIn.received.get(`${sandbox.cluster.namespace}/${env.id}`)).toMatchObject({
      metadata: { labels: { "a2a-bench.dev/role": "environment", "a2a-bench.dev/owner": "run-1" } },
      spec: { activeDeadlineSeconds: 3600, securityContext: { runAsNonRoot: true } },
    });
    const first = await sh(env, "pwd; id -u; cat TASK.md; sed -i 's/41/42/' solution.py; echo made > state.txt");
    expect(first).toMatchObject({ exitCode: 0, output: `${WORKDIR}\n65534\nmake f return 42\n` });
    const second = await sh(
      env,
      "cat state.txt; python3 -c 'import solution; print(solution.f())'; echo oops >&2; exit 7",
    );
    expect(second).toMatchObject({ exitCode: 7, output: "made\n42\noops\n" });
    const apart = await env.exec(["sh", "-c", "echo out; echo err >&2"], { timeoutMs: 60_000, streams: "separate" });
    expect(apart).toMatchObject({ exitCode: 0, output: "out\n", stderr: "err\n" });
    const words = ["$(touch pwned1)", "`touch pwned2`", "a'b\"c", "; touch pwned3", "*", "$HOME", ""];
    const printed = await env.exec(["printf", "[%s]", ...words], { timeoutMs: 60_000 });
    expect(printed.output).toBe(words.map((w) => `[${w}]`).join(""));
    const content = "#!/bin/sh\n$(touch pwned4) `touch pwned5` '\"; touch pwned6 & \\\n ünï\n";
    const name = "we ird'$(touch pwned7).txt";
    await env.writeFile(name, content);
    expect(await env.readFile(name)).toBe(content);
    expect((await sh(env, "ls -A")).output).not.toMatch(/^pwned\d$/m);
    await expect(env.readFile("/nonexistent")).rejects.toMatchObject({ code: "E_SANDBOX_SETUP" });
    const net = await sh(
      env,
      "python3 -c \"import socket; s=socket.socket(); s.settimeout(5); s.connect(('1.1.1.1', 80))\"",
    );
    expect(net.exitCode).not.toBe(0);
    expect(await env.backendProblem()).toBeNull();
  });

  test("readFile is bounded: a file past the cap (a link to /dev/zero) is an error, never a cut file", async () => {
    const env = await openKubernetesEnvironment(
      { image: BASE_IMAGE, owner: "run-1", files: { dir: WORKDIR, entries: {} } },
      {
        cluster: sandbox.cluster,
        limits: DEFAULT_LIMITS,
        user: "non-root",
        imagePullPolicy: "IfNotPresent",
        logger: silentLogger(),
        readFileMaxBytes: 1000,
      },
    );
    opened.push(env);
    await sh(env, "ln -s /dev/zero zero; head -c 1000 /dev/zero > exact");
    await expect(env.readFile("zero")).rejects.toThrow(/larger than 1000 bytes/);
    expect(await env.readFile("exact")).toHaveLength(1000);
  });

  test("a command past its limit ends the environment: the pod is deleted, later calls report infraError", async () => {
    const env = await open();
    const key = `${sandbox.cluster.namespace}/${env.id}`;
    expect(standIn.pods.has(key)).toBe(true);
    const r = await env.exec(["sh", "-c", "echo started; sleep 300"], { timeoutMs: 3000 });
    expect(r).toMatchObject({ exitCode: null, timedOut: true, isCanceled: false, output: "started\n" });
    expect(standIn.pods.has(key)).toBe(false);
    const after = await sh(env, "echo again");
    expect(after.infraError).toMatch(/ended after a command's timeout/);
    await expect(env.readFile("x")).rejects.toMatchObject({ code: "E_SANDBOX_CLOSED" });
    expect(await env.backendProblem()).toBeNull();
  });

  test("the pod's own deadline (the environment's lifetime) ends a command; backendProblem says so", async () => {
    // Long enough for the pod to be seen running on a loaded host; the command then outlives it.
    const env = await open({ lifetimeMs: 8000 });
    const r = await env.exec(["sleep", "300"], { timeoutMs: 600_000 });
    expect(r.exitCode).not.toBe(0);
    expect(r.timedOut).toBe(false);
    expect(await env.backendProblem()).toMatch(/Failed \(DeadlineExceeded\)/);
  });

  test("cancel: an abort stops the jobs and the environment's command, and deletes their pods", async () => {
    const ns = sandbox.cluster.namespace;
    const env = await open();
    const envKey = `${ns}/${env.id}`;
    const ac = new AbortController();
    const jobs = sandbox.execMany(
      [1, 2, 3].map(() => ({ language: "bash" as const, code: "sleep 300", timeoutMs: 600_000 })),
      ac.signal,
    );
    const command = env.exec(["sleep", "300"], { timeoutMs: 600_000, signal: ac.signal });
    // Abort once the three job pods run (a state of the stand-in, not a time).
    await until(() => podsOf(ns).filter((p) => p.name.startsWith("a2a-job-") && p.phase === "Running").length === 3);
    ac.abort();
    const outcomes = await jobs;
    expect(outcomes.map((o) => o.isCanceled)).toEqual([true, true, true]);
    expect(await command).toMatchObject({ isCanceled: true, exitCode: null });
    expect(podsOf(ns).filter((p) => p.name.startsWith("a2a-job-"))).toEqual([]);
    expect(standIn.pods.has(envKey)).toBe(false);
  });

  test("close deletes every pod by its label, the policy and our namespace; nothing is left on the engine", async () => {
    const own = await createKubernetesSandbox({
      limits: DEFAULT_LIMITS,
      logger: silentLogger(),
      env: {},
      kubernetes: { kubeconfig, assessment: "closing" },
    });
    const ns = own.cluster.namespace;
    const e1 = await environmentsOf(own, "test").openEnvironment({ image: BASE_IMAGE, owner: "x" });
    await environmentsOf(own, "test").openEnvironment({ image: BASE_IMAGE, owner: "x" });
    expect((await sh(e1, "echo up")).output).toBe("up\n");
    expect(podsOf(ns)).toHaveLength(2);
    await own.close();
    await own.close(); // idempotent
    expect(podsOf(ns)).toEqual([]);
    expect(standIn.namespaces.has(ns)).toBe(false);
    expect([...standIn.policies.keys()].filter((k) => k.startsWith(`${ns}/`))).toEqual([]);
    const collection = standIn.requests.find(
      (r) => r.method === "DELETE" && r.path === `/api/v1/namespaces/${ns}/pods`,
    );
    expect(new URLSearchParams(collection!.query).get("labelSelector")).toBe(
      `a2a-bench.dev/assessment=${own.cluster.assessment}`,
    );
    const containers = await standIn.containers();
    const live = [...standIn.pods.values()].map((p) => p.containerId);
    expect(containers.every((c) => live.some((id) => id?.startsWith(c)))).toBe(true);
  });

  test("an existing namespace the operator names is used and kept; only our pods and policy go", async () => {
    standIn.namespaces.set("team", { apiVersion: "v1", kind: "Namespace", metadata: { name: "team" } });
    const own = await createKubernetesSandbox({
      limits: DEFAULT_LIMITS,
      logger: silentLogger(),
      env: { A2A_BENCH_K8S_NAMESPACE: "team" },
      kubernetes: { kubeconfig, assessment: "in-team" },
    });
    expect(own.cluster.namespace).toBe("team");
    expect((await own.exec({ language: "python", code: "print(6*7)", timeoutMs: 60_000 })).stdoutTail).toBe("42\n");
    await own.close();
    expect(standIn.namespaces.has("team")).toBe(true);
    expect(podsOf("team")).toEqual([]);
    expect([...standIn.policies.keys()].filter((k) => k.startsWith("team/"))).toEqual([]);
  });

  test("a kubeconfig with the wrong token: E_K8S naming the server's refusal, nothing created", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kubeconfig-"));
    const bad = join(dir, "config");
    writeFileSync(bad, standIn.kubeconfig().replace(standIn.token, "wrong-token"));
    const before = standIn.namespaces.size;
    await expect(
      createKubernetesSandbox({
        limits: DEFAULT_LIMITS,
        logger: silentLogger(),
        env: {},
        kubernetes: { kubeconfig: bad },
      }),
    ).rejects.toMatchObject({ code: "E_K8S", message: expect.stringMatching(/401/) });
    expect(standIn.namespaces.size).toBe(before);
  });
});
