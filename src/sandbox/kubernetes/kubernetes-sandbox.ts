/**
 * The kubernetes backend: jobs and environments as pods of one namespace per assessment, through the
 * official client (`@kubernetes/client-node`, an optional dependency loaded here only).
 *
 * - The namespace is ours (`a2a-bench-<assessment>`, created at the start, deleted at the end, Pod
 *   Security "restricted" when every pod is non-root) or an existing one the operator names; a deny-all
 *   NetworkPolicy selects the assessment's pods (no ingress, no egress: enforced by the cluster's
 *   network plugin, which must support NetworkPolicy).
 * - A job is a pod of its own (exec cannot choose a uid, so one pod cannot keep jobs apart): a fresh
 *   non-root uid, a read-only root, a memory-backed /tmp, the job's memory as the pod's limit, its wall
 *   limit plus slack as `activeDeadlineSeconds`. The job goes in through exec stdin as JSON to the
 *   docker backend's bootstrap (files, program, stdin, env and the per-program rlimits: never on a
 *   command line), which prints a status line marked by a random nonce; then the pod is deleted.
 * - Environments: kubernetes-environment.ts.
 * - Timeout, output cap, abort and close delete the pods (deleting is what stops a command: a closed
 *   socket would leave it running); close() deletes every pod of the assessment by its label, the
 *   policy, and our namespace.
 * - If this process dies, every pod ends at its own deadline; the namespace stays until deleted by
 *   hand (`kubectl delete ns -l app.kubernetes.io/managed-by=a2a-bench`): docs/sandbox-backends.md.
 */
import { availableParallelism } from "node:os";
import { randomBytes } from "node:crypto";
import type { Logger } from "../../util/logger.js";
import type { ExecOutcome, ExecRequest, Sandbox, SandboxLimits } from "../types.js";
import { SandboxError } from "../errors.js";
import { refusedRequest, type SandboxCapability } from "../capabilities.js";
import { emptyOutcome } from "../types.js";
import { Limiter, runCancellable } from "../concurrency.js";
import type { Environment, EnvironmentSpec } from "../environment.js";
import { refuseEngineOnly } from "../environment.js";
import { JOB_BOOTSTRAP, splitStatus, type JobPayload } from "../docker/job-bootstrap.js";
import { loadK8sClient, type K8sClientImporter } from "./load-client.js";
import { KubeCluster, loadKubeConfig, type KubeConfigSource } from "./cluster.js";
import { dnsLabel, JOB_DEADLINE_SLACK_S, podManifest, type EnvironmentUser } from "./manifests.js";
import { podExec } from "./pod-exec.js";
import { openKubernetesEnvironment } from "./kubernetes-environment.js";

/** Default image of the jobs (the docker backend's). */
export const DEFAULT_K8S_IMAGE = "a2a-bench/debian-base:bookworm";
/** Jobs run as JOB_UID_BASE + a random offset below JOB_UID_SPAN: no two concurrent jobs share a uid. */
export const JOB_UID_BASE = 200_000;
const JOB_UID_SPAN = 100_000;

const INTERPRETER = { python: ["/usr/bin/python3", "-B"], bash: ["/bin/bash"], node: ["/usr/bin/node"] } as const;
const EXT = { python: "py", bash: "sh", node: "js" } as const;

export interface KubernetesOptions extends KubeConfigSource {
  /** An existing namespace to run in; default: one of our own per assessment ($A2A_BENCH_K8S_NAMESPACE). */
  namespace?: string;
  /** Id of the assessment (the run id): the label of everything created; a random suffix keeps it unique. */
  assessment?: string;
  /** Image of the jobs; default $A2A_BENCH_K8S_IMAGE, else DEFAULT_K8S_IMAGE. */
  image?: string;
  /** Environments' user: "non-root" (default) or "image" (root images such as SWE-bench's); $A2A_BENCH_K8S_ENV_USER. */
  environmentUser?: EnvironmentUser;
  /** Default "IfNotPresent"; $A2A_BENCH_K8S_PULL_POLICY. */
  imagePullPolicy?: "Always" | "IfNotPresent" | "Never";
}

/** The options with the A2A_BENCH_K8S_* environment's defaults filled in. */
export function kubernetesOptionsFromEnv(
  o: KubernetesOptions,
  env: NodeJS.ProcessEnv = process.env,
): KubernetesOptions {
  const pick = (name: string) => (env[name] !== undefined && env[name] !== "" ? env[name] : undefined);
  const user = o.environmentUser ?? pick("A2A_BENCH_K8S_ENV_USER");
  if (user !== undefined && user !== "non-root" && user !== "image")
    throw new SandboxError("E_SANDBOX_OPTIONS", `kubernetes environmentUser must be non-root or image, got ${user}`);
  const pull = o.imagePullPolicy ?? pick("A2A_BENCH_K8S_PULL_POLICY");
  if (pull !== undefined && pull !== "Always" && pull !== "IfNotPresent" && pull !== "Never")
    throw new SandboxError(
      "E_SANDBOX_OPTIONS",
      `kubernetes imagePullPolicy must be Always, IfNotPresent or Never, got ${pull}`,
    );
  const kubeconfig = o.kubeconfig ?? pick("A2A_BENCH_K8S_KUBECONFIG");
  const context = o.context ?? pick("A2A_BENCH_K8S_CONTEXT");
  const namespace = o.namespace ?? pick("A2A_BENCH_K8S_NAMESPACE");
  const image = o.image ?? pick("A2A_BENCH_K8S_IMAGE");
  const inCluster = o.inCluster ?? (pick("A2A_BENCH_K8S_IN_CLUSTER") === "1" ? true : undefined);
  return {
    ...o,
    ...(kubeconfig !== undefined ? { kubeconfig } : {}),
    ...(context !== undefined ? { context } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(image !== undefined ? { image } : {}),
    ...(inCluster !== undefined ? { inCluster } : {}),
    ...(user !== undefined ? { environmentUser: user } : {}),
    ...(pull !== undefined ? { imagePullPolicy: pull } : {}),
  };
}

class KubernetesSandbox implements Sandbox {
  readonly backend = "kubernetes" as const;
  readonly isolation = "kubernetes" as const;
  readonly warnings: readonly string[] = [
    "kubernetes: no network relies on the cluster's network plugin enforcing NetworkPolicy",
  ];
  readonly capabilities: ReadonlySet<SandboxCapability> = new Set<SandboxCapability>(["environments", "images"]);
  private closed = false;
  private readonly limiter: Limiter;
  private readonly running = new Set<AbortController>();
  private readonly environments = new Set<Environment>();

  constructor(
    readonly cluster: KubeCluster,
    private readonly limits: SandboxLimits,
    concurrency: number,
    private readonly image: string,
    private readonly environmentUser: EnvironmentUser,
    private readonly imagePullPolicy: "Always" | "IfNotPresent" | "Never",
    private readonly logger: Logger,
  ) {
    this.limiter = new Limiter(concurrency);
  }

  exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecOutcome> {
    if (this.closed) return Promise.reject(new SandboxError("E_SANDBOX_CLOSED", "exec() after close()"));
    return runCancellable(
      this.limiter,
      this.running,
      signal,
      () => emptyOutcome({ isCanceled: true }),
      (s) => this.runJob(req, s),
    );
  }

  execMany(reqs: ExecRequest[], signal?: AbortSignal): Promise<ExecOutcome[]> {
    if (this.closed) return Promise.reject(new SandboxError("E_SANDBOX_CLOSED", "execMany() after close()"));
    return Promise.all(reqs.map((r) => this.exec(r, signal)));
  }

  private async runJob(req: ExecRequest, signal: AbortSignal): Promise<ExecOutcome> {
    const lacking = refusedRequest(this, req);
    if (lacking !== null) return emptyOutcome({ infraError: `${lacking}; files go in \`files\`` });
    const uid = JOB_UID_BASE + Math.floor(Math.random() * JOB_UID_SPAN);
    const name = `a2a-job-${randomBytes(6).toString("hex")}`;
    const t0 = performance.now();
    try {
      await this.cluster.createPod(
        podManifest({
          name,
          namespace: this.cluster.namespace,
          assessment: this.cluster.assessment,
          role: "job",
          image: this.image,
          imagePullPolicy: this.imagePullPolicy,
          limits: this.limits,
          deadlineSeconds: Math.ceil(req.timeoutMs / 1000) + JOB_DEADLINE_SLACK_S,
          uid,
          workDir: "/tmp",
        }),
      );
    } catch (e) {
      return emptyOutcome({ infraError: (e as Error).message });
    }
    try {
      try {
        await this.cluster.waitRunning(name, signal);
      } catch (e) {
        if (signal.aborted) return emptyOutcome({ isCanceled: true });
        return emptyOutcome({ infraError: (e as Error).message });
      }
      const nonce = `a2a-status-${randomBytes(12).toString("hex")}:`;
      const payload: JobPayload = {
        nonce,
        interpreter: [...INTERPRETER[req.language]],
        ext: EXT[req.language],
        code: req.code,
        files: req.files ?? {},
        stdin: req.stdin ?? "",
        env: req.env ?? {},
        limits: this.limits,
      };
      const cap = this.limits.maxOutputBytes;
      const r = await podExec(this.cluster, name, {
        argv: ["/usr/bin/python3", "-I", "-S", "-c", JOB_BOOTSTRAP],
        stdin: JSON.stringify(payload),
        timeoutMs: req.timeoutMs,
        signal,
        stdoutBytes: cap,
        // The status line rides on stderr: keep a little more than the cap so it is never cut off.
        stderrBytes: cap + 512,
        stopAbove: cap + 512,
        stop: () => this.cluster.deletePod(name),
      });
      const { stderr, status } = splitStatus(r.stderr, nonce);
      const base = {
        timedOut: r.stopped === "timeout",
        isCanceled: r.stopped === "cancel",
        outputLimitExceeded: r.stopped === "output" || r.stdoutTotal > cap,
        durationMs: Math.round(performance.now() - t0),
        stdoutTail: r.stdout,
        stderrTail: stderr,
      };
      if (r.stopped !== null) return emptyOutcome({ ...base, signal: "SIGKILL" });
      if (r.infraError !== undefined) return emptyOutcome({ ...base, infraError: r.infraError });
      if (status?.setupError)
        return emptyOutcome({ ...base, infraError: `job setup in the pod: ${status.setupError}` });
      if (status) return emptyOutcome({ ...base, exitCode: status.exitCode, signal: status.signal });
      return emptyOutcome({
        ...base,
        infraError: `the job's bootstrap ended without a status (exit ${r.exitCode ?? "none"}${r.refused ? `: ${r.refused}` : ""}): ${stderr.trim().slice(-300)}`,
      });
    } finally {
      await this.cluster.deletePod(name);
    }
  }

  async openEnvironment(spec: EnvironmentSpec, signal?: AbortSignal): Promise<Environment> {
    if (this.closed) throw new SandboxError("E_SANDBOX_CLOSED", "openEnvironment() after close()");
    refuseEngineOnly(spec, "kubernetes");
    const e = await openKubernetesEnvironment(
      spec,
      {
        cluster: this.cluster,
        limits: this.limits,
        user: this.environmentUser,
        imagePullPolicy: this.imagePullPolicy,
        logger: this.logger,
      },
      { ...(signal ? { signal } : {}), onClose: (closed) => this.environments.delete(closed) },
    );
    if (this.closed) {
      await e.close().catch(() => undefined);
      throw new SandboxError("E_SANDBOX_CLOSED", "the sandbox was closed while the environment started");
    }
    this.environments.add(e);
    return e;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const ac of this.running) ac.abort();
    const open = [...this.environments];
    this.environments.clear();
    await Promise.all(open.map((e) => e.close().catch(() => undefined)));
    await this.cluster.removeAll();
  }
}

/** Create the sandbox: kubeconfig, namespace and policy; rejects E_K8S / E_K8S_CLIENT_MISSING / E_SANDBOX_OPTIONS. */
export async function createKubernetesSandbox(o: {
  limits: SandboxLimits;
  logger: Logger;
  concurrency?: number;
  kubernetes?: KubernetesOptions;
  importClient?: K8sClientImporter;
  env?: NodeJS.ProcessEnv;
}): Promise<Sandbox & { readonly cluster: KubeCluster }> {
  const opts = kubernetesOptionsFromEnv(o.kubernetes ?? {}, o.env);
  const client = await loadK8sClient(o.importClient);
  const kc = loadKubeConfig(client, opts);
  const user = opts.environmentUser ?? "non-root";
  const assessment = dnsLabel(`${dnsLabel(opts.assessment ?? "run", 40)}-${randomBytes(4).toString("hex")}`);
  const cluster = await KubeCluster.open({
    client,
    kc,
    assessment,
    ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
    restricted: user === "non-root",
    logger: o.logger,
  });
  return new KubernetesSandbox(
    cluster,
    o.limits,
    o.concurrency ?? availableParallelism(),
    opts.image ?? DEFAULT_K8S_IMAGE,
    user,
    opts.imagePullPolicy ?? "IfNotPresent",
    o.logger,
  );
}
