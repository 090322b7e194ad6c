/**
 * The kubernetes backend's descriptor: jobs and environments run as pods of a Kubernetes cluster
 * (the kubeconfig's current context, or the pod's service account in a cluster), through the
 * optional @kubernetes/client-node package.
 */
import { defineSandboxBackend, type SandboxFactory } from "../backend.js";

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
  load: async (): Promise<SandboxFactory> => {
    const { createKubernetesSandbox } = await import("./kubernetes-sandbox.js");
    return (options, limits) =>
      createKubernetesSandbox({
        limits,
        logger: options.logger,
        ...(options.concurrency ? { concurrency: options.concurrency } : {}),
        ...(options.kubernetes ? { kubernetes: options.kubernetes } : {}),
      });
  },
});
