/**
 * The kubernetes backend's pure parts: the objects it asks the API server for (pods, namespace, deny-all
 * policy), the exit code read from the exec error channel's Status, its options, kubeconfig loading and
 * the optional client's absence. No cluster or engine needed.
 */
import { describe, expect, test } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ASSESSMENT_LABEL,
  denyAllPolicy,
  dnsLabel,
  labelValue,
  namespaceManifest,
  podManifest,
} from "../../../src/sandbox/kubernetes/manifests.js";
import { exitOf } from "../../../src/sandbox/kubernetes/pod-exec.js";
import {
  kubernetesOptionsFromEnv,
  createKubernetesSandbox,
} from "../../../src/sandbox/kubernetes/kubernetes-sandbox.js";
import { K8S_CLIENT_PACKAGE, loadK8sClient } from "../../../src/sandbox/kubernetes/load-client.js";
import { loadKubeConfig } from "../../../src/sandbox/kubernetes/cluster.js";
import { DEFAULT_LIMITS } from "../../../src/sandbox/limits.js";
import { silentLogger } from "../../../src/util/logger.js";

const limits = { ...DEFAULT_LIMITS };

describe("kubernetes manifests", () => {
  test("a job's pod: non-root uid, read-only root, no capability, no token, its deadline and limits", () => {
    const pod = podManifest({
      name: "a2a-job-1",
      namespace: "ns",
      assessment: "run-1-abcd",
      role: "job",
      image: "img",
      imagePullPolicy: "IfNotPresent",
      limits,
      deadlineSeconds: 130,
      uid: 200_123,
      workDir: "/tmp",
    });
    expect(pod.metadata?.labels).toMatchObject({ [ASSESSMENT_LABEL]: "run-1-abcd", "a2a-bench.dev/role": "job" });
    expect(pod.spec).toMatchObject({
      restartPolicy: "Never",
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      activeDeadlineSeconds: 130,
      terminationGracePeriodSeconds: 0,
      securityContext: { runAsNonRoot: true, runAsUser: 200_123, seccompProfile: { type: "RuntimeDefault" } },
    });
    const c = pod.spec!.containers[0]!;
    expect(c.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ["ALL"] },
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      runAsUser: 200_123,
      runAsGroup: 200_123,
    });
    expect(c.resources?.limits?.["memory"]).toBe(String(limits.memoryBytes + 256 * 1024 * 1024));
    // /tmp only: the job's work dir is /tmp itself.
    expect(c.volumeMounts?.map((m) => m.mountPath)).toEqual(["/tmp"]);
    expect(pod.spec!.volumes?.[0]).toMatchObject({ emptyDir: { medium: "Memory" } });
  });

  test("an environment's pod: a writable emptyDir at its files' directory; the image's user only when asked", () => {
    const base = {
      name: "a2a-env-1",
      namespace: "ns",
      assessment: "a",
      role: "environment" as const,
      image: "swe",
      imagePullPolicy: "Never" as const,
      limits,
      deadlineSeconds: 3600,
      workDir: "/workspace",
      owner: "run 1/x",
    };
    const nonRoot = podManifest({ ...base, uid: 65534 });
    expect(nonRoot.spec!.containers[0]!.volumeMounts?.map((m) => m.mountPath)).toEqual(["/tmp", "/workspace"]);
    expect(nonRoot.spec!.containers[0]!.workingDir).toBe("/workspace");
    expect(nonRoot.metadata?.labels?.["a2a-bench.dev/owner"]).toBe("run-1-x");
    const asImage = podManifest({ ...base, uid: null });
    expect(asImage.spec!.securityContext).toEqual({ seccompProfile: { type: "RuntimeDefault" } });
    expect(asImage.spec!.containers[0]!.securityContext).toMatchObject({
      readOnlyRootFilesystem: false,
      capabilities: { drop: ["ALL"] },
      allowPrivilegeEscalation: false,
    });
    expect(asImage.spec!.containers[0]!.volumeMounts?.map((m) => m.mountPath)).toEqual(["/tmp"]);
  });

  test("namespace and policy: Pod Security restricted unless root is asked for; deny-all selects the assessment", () => {
    expect(namespaceManifest("n", "a", true).metadata?.labels?.["pod-security.kubernetes.io/enforce"]).toBe(
      "restricted",
    );
    expect(namespaceManifest("n", "a", false).metadata?.labels?.["pod-security.kubernetes.io/enforce"]).toBe(
      "baseline",
    );
    expect(denyAllPolicy("n", "a").spec).toEqual({
      podSelector: { matchLabels: { [ASSESSMENT_LABEL]: "a" } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [],
      egress: [],
    });
  });

  test("names and label values are what the API server accepts", () => {
    expect(labelValue("-run id:1/é-")).toBe("run-id-1");
    expect(labelValue("x".repeat(80))).toHaveLength(63);
    expect(labelValue("///")).toBe("none");
    expect(dnsLabel("Run_ID.1")).toBe("run-id-1");
  });
});

describe("exit status from the error channel", () => {
  test("Success is 0; NonZeroExitCode carries the code; any other failure never ran", () => {
    expect(exitOf({ metadata: {}, status: "Success" })).toBe(0);
    expect(
      exitOf({
        status: "Failure",
        reason: "NonZeroExitCode",
        message: "command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3",
        details: { causes: [{ reason: "ExitCode", message: "3" }] },
      }),
    ).toBe(3);
    expect(exitOf({ status: "Failure", reason: "InternalError", message: "container not found" })).toBe(
      "container not found",
    );
  });
});

describe("kubernetes options", () => {
  test("A2A_BENCH_K8S_* fill what the options leave out; bad values are refused", () => {
    const env = {
      A2A_BENCH_K8S_KUBECONFIG: "/k",
      A2A_BENCH_K8S_NAMESPACE: "team",
      A2A_BENCH_K8S_IMAGE: "img",
      A2A_BENCH_K8S_ENV_USER: "image",
      A2A_BENCH_K8S_PULL_POLICY: "Never",
    };
    expect(kubernetesOptionsFromEnv({ image: "mine" }, env)).toEqual({
      kubeconfig: "/k",
      namespace: "team",
      image: "mine",
      environmentUser: "image",
      imagePullPolicy: "Never",
    });
    expect(() => kubernetesOptionsFromEnv({}, { A2A_BENCH_K8S_ENV_USER: "root" })).toThrow(/environmentUser/);
    expect(() => kubernetesOptionsFromEnv({}, { A2A_BENCH_K8S_PULL_POLICY: "Sometimes" })).toThrow(/imagePullPolicy/);
  });

  test("a kubeconfig file is read with its context; one naming no cluster is E_K8S", async () => {
    const client = await loadK8sClient();
    const dir = mkdtempSync(join(tmpdir(), "kubeconfig-"));
    const path = join(dir, "config");
    writeFileSync(
      path,
      [
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- {name: a, cluster: {server: 'https://10.1.2.3:6443'}}",
        "- {name: b, cluster: {server: 'https://10.9.9.9:6443'}}",
        "users: [{name: u, user: {token: t}}]",
        "contexts:",
        "- {name: ca, context: {cluster: a, user: u}}",
        "- {name: cb, context: {cluster: b, user: u}}",
        "current-context: ca",
      ].join("\n"),
    );
    expect(loadKubeConfig(client, { kubeconfig: path }).getCurrentCluster()?.server).toBe("https://10.1.2.3:6443");
    expect(loadKubeConfig(client, { kubeconfig: path, context: "cb" }).getCurrentCluster()?.server).toBe(
      "https://10.9.9.9:6443",
    );
    expect(() => loadKubeConfig(client, { kubeconfig: join(dir, "missing") })).toThrow(
      expect.objectContaining({ code: "E_K8S" }),
    );
  });

  test("the client not installed: E_K8S_CLIENT_MISSING naming the package, before any request", async () => {
    const notInstalled = () =>
      Promise.reject(
        Object.assign(new Error(`Cannot find package '${K8S_CLIENT_PACKAGE}' imported from /app/dist/x.js`), {
          code: "ERR_MODULE_NOT_FOUND",
        }),
      );
    const err = await createKubernetesSandbox({
      limits,
      logger: silentLogger(),
      importClient: notInstalled,
      env: {},
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "E_K8S_CLIENT_MISSING" });
    expect((err as Error).message).toContain(`run \`npm install ${K8S_CLIENT_PACKAGE}\``);
  });
});
