/**
 * The API server, as the kubernetes backend uses it through the official client: the kubeconfig
 * (a path, KUBECONFIG or ~/.kube/config, or the pod's own service account in a cluster), the
 * assessment's namespace (ours, created and deleted here, or an existing one the operator names),
 * its deny-all NetworkPolicy, pods created, awaited, read and deleted, and everything of the
 * assessment deleted by its label.
 *
 * Every call carries its own time limit (`REQUEST_TIMEOUT_MS`): an API server that stops answering
 * is our failure (`E_K8S`), never a command's.
 */
import type { CoreV1Api, Exec, KubeConfig, NetworkingV1Api, V1Pod } from "@kubernetes/client-node";
import { SandboxError } from "../errors.js";
import type { Logger } from "../../util/logger.js";
import type { K8sClient } from "./load-client.js";
import { ASSESSMENT_LABEL, denyAllPolicy, namespaceManifest, networkPolicyName } from "./manifests.js";

/** Limit of one API call, ms. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** How long a pod may take to run (scheduling, an image pull), ms, unless the caller names its own. */
export const POD_START_TIMEOUT_MS = 300_000;
/** Pause between two reads of a pod that is starting or going, ms. */
const POLL_MS = 200;

/** Where the kubeconfig comes from. */
export interface KubeConfigSource {
  /** A kubeconfig file; default KUBECONFIG, else ~/.kube/config, else the in-cluster service account. */
  kubeconfig?: string;
  /** Use the pod's own service account (in a cluster); default: when no kubeconfig is found and KUBERNETES_SERVICE_HOST is set. */
  inCluster?: boolean;
  /** Context of the kubeconfig; default its current context. */
  context?: string;
}

/** The kubeconfig, loaded as asked; SandboxError E_K8S when it cannot be read or names no cluster. */
export function loadKubeConfig(client: K8sClient, source: KubeConfigSource): KubeConfig {
  const kc = new client.KubeConfig();
  try {
    if (source.inCluster) kc.loadFromCluster();
    else if (source.kubeconfig !== undefined) kc.loadFromFile(source.kubeconfig);
    else kc.loadFromDefault();
    if (source.context !== undefined) kc.setCurrentContext(source.context);
  } catch (e) {
    throw new SandboxError("E_K8S", `kubeconfig: ${(e as Error).message}`, { cause: e });
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new SandboxError("E_K8S", "kubeconfig: its current context names no cluster");
  return kc;
}

/** The message of an API failure: the server's Status message when it sent one, else the error's. */
export function apiMessage(e: unknown): string {
  const body = (e as { body?: unknown }).body;
  let parsed: unknown = body;
  if (typeof body === "string") {
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = null;
    }
  }
  const m = (parsed as { message?: unknown } | null)?.message;
  const code = (e as { code?: unknown }).code;
  if (typeof m === "string") return `${typeof code === "number" ? `${code} ` : ""}${m}`;
  return (e as Error).message?.split("\n")[0] ?? String(e);
}

/** HTTP status of an API failure, or undefined when none came back. */
export function apiStatus(e: unknown): number | undefined {
  const c = (e as { code?: unknown }).code;
  return typeof c === "number" ? c : undefined;
}

function withTimeout<T>(what: string, p: Promise<T>, ms = REQUEST_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new SandboxError("E_K8S", `${what}: no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** What a pod is doing, as read from the API server. */
export interface PodState {
  phase: string;
  /** Why it ended or cannot start (DeadlineExceeded, ErrImagePull, …), when known. */
  reason?: string;
  message?: string;
}

/** A pod that will never run (an image that cannot be pulled, a spec refused by the kubelet). */
const WAITING_FOR_GOOD = new Set([
  "ErrImagePull",
  "ImagePullBackOff",
  "ErrImageNeverPull",
  "InvalidImageName",
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
]);

export function podState(pod: V1Pod): PodState {
  const waiting = pod.status?.containerStatuses?.[0]?.state?.waiting;
  const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
  const reason = pod.status?.reason ?? waiting?.reason ?? terminated?.reason;
  const message = pod.status?.message ?? waiting?.message ?? terminated?.message;
  return {
    phase: pod.status?.phase ?? "Pending",
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
  };
}

/** The assessment's place on the cluster: its namespace, policy and pods. */
export class KubeCluster {
  readonly core: CoreV1Api;
  readonly networking: NetworkingV1Api;
  readonly exec: Exec;
  /** The API server's URL, for messages. */
  readonly server: string;
  private removed: Promise<void> | null = null;

  private constructor(
    readonly kc: KubeConfig,
    client: K8sClient,
    readonly namespace: string,
    /** True when the namespace is ours (created here, deleted at the end). */
    readonly ownNamespace: boolean,
    readonly assessment: string,
    private readonly logger: Logger,
  ) {
    this.core = kc.makeApiClient(client.CoreV1Api);
    this.networking = kc.makeApiClient(client.NetworkingV1Api);
    this.exec = new client.Exec(kc);
    this.server = kc.getCurrentCluster()!.server;
  }

  /**
   * Prepare the assessment: its namespace (created unless `namespace` names an existing one) and the
   * deny-all policy for its pods. Rejects with E_K8S (nothing left behind) when the server refuses.
   */
  static async open(o: {
    client: K8sClient;
    kc: KubeConfig;
    assessment: string;
    /** An existing namespace to use; default: our own `a2a-bench-<assessment>`. */
    namespace?: string;
    /** Our namespace's Pod Security level is "restricted" (every pod non-root). */
    restricted: boolean;
    logger: Logger;
  }): Promise<KubeCluster> {
    const own = o.namespace === undefined;
    const namespace = o.namespace ?? `a2a-bench-${o.assessment}`.slice(0, 63).replace(/-+$/, "");
    const c = new KubeCluster(o.kc, o.client, namespace, own, o.assessment, o.logger);
    try {
      if (own)
        await withTimeout(
          "creating the namespace",
          c.core.createNamespace({ body: namespaceManifest(namespace, o.assessment, o.restricted) }),
        );
      else await withTimeout("reading the namespace", c.core.readNamespace({ name: namespace }));
      await withTimeout(
        "creating the NetworkPolicy",
        c.networking.createNamespacedNetworkPolicy({ namespace, body: denyAllPolicy(namespace, o.assessment) }),
      );
    } catch (e) {
      await c.removeAll().catch(() => undefined);
      throw new SandboxError(
        "E_K8S",
        `preparing namespace ${namespace} on ${c.server}: ${e instanceof SandboxError ? e.message : apiMessage(e)}`,
        { cause: e },
      );
    }
    return c;
  }

  /** The label selector of everything of this assessment. */
  get selector(): string {
    return `${ASSESSMENT_LABEL}=${this.assessment}`;
  }

  async createPod(pod: V1Pod): Promise<void> {
    try {
      await withTimeout("creating a pod", this.core.createNamespacedPod({ namespace: this.namespace, body: pod }));
    } catch (e) {
      throw new SandboxError("E_K8S", `creating pod ${pod.metadata?.name} in ${this.namespace}: ${apiMessage(e)}`, {
        cause: e,
      });
    }
  }

  /** The pod's state, or null when it is gone (404). Rejects (E_K8S) when the server does not answer. */
  async readPod(name: string): Promise<PodState | null> {
    try {
      return podState(
        await withTimeout("reading a pod", this.core.readNamespacedPod({ name, namespace: this.namespace })),
      );
    } catch (e) {
      if (apiStatus(e) === 404) return null;
      throw e instanceof SandboxError
        ? e
        : new SandboxError("E_K8S", `reading pod ${name}: ${apiMessage(e)}`, { cause: e });
    }
  }

  /** Wait until the pod runs; rejects (E_K8S, or E_SANDBOX_UNAVAILABLE when it can never run) otherwise. */
  async waitRunning(name: string, signal: AbortSignal | undefined, timeoutMs = POD_START_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (signal?.aborted) throw new SandboxError("E_SANDBOX_UNAVAILABLE", `canceled while pod ${name} started`);
      const s = await this.readPod(name);
      if (s === null) throw new SandboxError("E_SANDBOX_UNAVAILABLE", `pod ${name} is gone before it ran`);
      if (s.phase === "Running") return;
      const why = `${s.reason ?? s.phase}${s.message ? `: ${s.message}` : ""}`;
      if (s.phase === "Succeeded" || s.phase === "Failed" || (s.reason && WAITING_FOR_GOOD.has(s.reason)))
        throw new SandboxError("E_SANDBOX_UNAVAILABLE", `pod ${name} cannot run (${why})`);
      if (Date.now() > deadline)
        throw new SandboxError(
          "E_SANDBOX_UNAVAILABLE",
          `pod ${name} did not run within ${timeoutMs / 1000} s (${why})`,
        );
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** Delete a pod at once (no grace); a pod already gone is fine. Never rejects: a failure is logged. */
  async deletePod(name: string): Promise<void> {
    try {
      await withTimeout(
        "deleting a pod",
        this.core.deleteNamespacedPod({ name, namespace: this.namespace, gracePeriodSeconds: 0 }),
      );
    } catch (e) {
      if (apiStatus(e) === 404) return;
      this.logger.warn({ err: apiMessage(e), pod: name }, "kubernetes: deleting a pod failed; its deadline ends it");
    }
  }

  /** Names of the assessment's pods the server still lists. */
  async listPods(): Promise<string[]> {
    const list = await withTimeout(
      "listing pods",
      this.core.listNamespacedPod({ namespace: this.namespace, labelSelector: this.selector }),
    );
    return list.items.map((p) => p.metadata?.name ?? "");
  }

  /**
   * Delete everything of the assessment: its pods by label, its policy, and the namespace when it is
   * ours. Once; resolves when the server lists none of its pods (or after logging why not).
   */
  removeAll(): Promise<void> {
    this.removed ??= this.doRemoveAll();
    return this.removed;
  }

  private async doRemoveAll(): Promise<void> {
    const warn = (what: string, e: unknown) =>
      this.logger.warn({ err: apiMessage(e), namespace: this.namespace }, `kubernetes: ${what} failed`);
    const ignore404 = (what: string) => (e: unknown) => (apiStatus(e) === 404 ? undefined : warn(what, e));
    await withTimeout(
      "deleting the pods",
      this.core.deleteCollectionNamespacedPod({
        namespace: this.namespace,
        labelSelector: this.selector,
        gracePeriodSeconds: 0,
      }),
    ).catch(ignore404("deleting the assessment's pods"));
    await withTimeout(
      "deleting the NetworkPolicy",
      this.networking.deleteNamespacedNetworkPolicy({
        name: networkPolicyName(this.assessment),
        namespace: this.namespace,
      }),
    ).catch(ignore404("deleting the NetworkPolicy"));
    // Wait until the pods are gone (a real cluster deletes them asynchronously), bounded.
    const deadline = Date.now() + REQUEST_TIMEOUT_MS;
    for (;;) {
      let left: string[];
      try {
        left = await this.listPods();
      } catch (e) {
        if (apiStatus(e) !== 404) warn("listing the remaining pods", e);
        break;
      }
      if (left.length === 0) break;
      if (Date.now() > deadline) {
        this.logger.warn({ pods: left, namespace: this.namespace }, "kubernetes: pods still listed after deletion");
        break;
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    if (this.ownNamespace)
      await withTimeout("deleting the namespace", this.core.deleteNamespace({ name: this.namespace })).catch(
        ignore404("deleting the namespace"),
      );
  }
}
