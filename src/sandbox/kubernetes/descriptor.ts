/**
 * The kubernetes backend's descriptor: jobs and environments run as pods of a Kubernetes cluster
 * (the kubeconfig's current context, or the pod's service account in a cluster), through the
 * optional @kubernetes/client-node package.
 */
import { checkBackendOptions, defineSandboxBackend, type SandboxFactory } from "../backend.js";
import type { KubernetesOptions } from "./kubernetes-sandbox.js";

export const kubernetesBackend = defineSandboxBackend({
  name: "kubernetes",
  summary: "pods of a Kubernetes cluster (the kubeconfig's current context)",
  isolationLevels: ["kubernetes"],
  fullIsolation: ["kubernetes"],
  // Files travel through exec stdin: no host directory, overlay or root job (refusedRequest).
  capabilities: new Set(["environments", "images"] as const),
  preflight: {
    env: [],
    programs: [],
    unavailableFix:
      "point KUBECONFIG (or A2A_BENCH_K8S_KUBECONFIG) at a cluster whose user holds the RBAC of deploy/kubernetes/rbac.yaml; the job image must be pullable there (A2A_BENCH_K8S_IMAGE)",
  },
  // The client's own selection of a cluster (KUBECONFIG; in a pod, the service's address) and ours.
  selectionEnv: {
    names: ["KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"],
    prefixes: ["A2A_BENCH_K8S_"],
  },
  backendOptions: (raw) =>
    checkBackendOptions<KubernetesOptions>("kubernetes", raw, {
      kubeconfig: "string",
      inCluster: "boolean",
      context: "string",
      namespace: "string",
      assessment: "string",
      image: "string",
      environmentUser: ["non-root", "image"],
      imagePullPolicy: ["Always", "IfNotPresent", "Never"],
    }),
  load: async (): Promise<SandboxFactory> => {
    const { createKubernetesSandbox } = await import("./kubernetes-sandbox.js");
    return (options, limits) => {
      // Checked by backendOptions above before this factory loaded (sandbox/index.ts); the owner names
      // the assessment unless the options do.
      const own = (options.backendOptions ?? {}) as KubernetesOptions;
      const assessment = own.assessment ?? options.owner;
      return createKubernetesSandbox({
        limits,
        logger: options.logger,
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        kubernetes: { ...own, ...(assessment !== undefined ? { assessment } : {}) },
      });
    };
  },
});
