/**
 * The objects the kubernetes backend asks the API server for, as pure functions of our limits: the
 * assessment's namespace, its deny-all NetworkPolicy, a job's pod and an environment's pod. Every object
 * carries the assessment label (`ASSESSMENT_LABEL`), so one label selector finds all of them at the end
 * and on cancel.
 *
 * Every pod: no service-account token, no service links, no host namespace or path, `restartPolicy:
 * Never`, `activeDeadlineSeconds` (the platform ends it if we die), `terminationGracePeriodSeconds: 0`,
 * the container's capabilities all dropped, no privilege escalation, the RuntimeDefault seccomp profile,
 * memory and CPU limits (requests small, so the limits do not reserve a node), a memory-backed /tmp.
 * A job's pod runs as a fresh non-root uid with a read-only root; an environment's pod runs non-root
 * with a read-only root and a writable emptyDir at its files' directory, or (`environmentUser: "image"`,
 * for images such as SWE-bench's whose tree belongs to root) as the image's user with a writable root.
 */
import type { V1Namespace, V1NetworkPolicy, V1Pod, V1SecurityContext } from "@kubernetes/client-node";
import { ENVIRONMENT_DISK_BYTES, TMPFS_BYTES } from "../limits.js";
import type { SandboxLimits } from "../types.js";

/** Label on everything of one assessment (value: the assessment id); cleanup selects by it. */
export const ASSESSMENT_LABEL = "a2a-bench.dev/assessment";
/** Label naming what a pod is: "job" or "environment". */
export const ROLE_LABEL = "a2a-bench.dev/role";
/** Label with an environment's owner (the run id), as the docker backend's. */
export const OWNER_LABEL = "a2a-bench.dev/owner";
/** The standard label saying who manages an object. */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
/** Name of the one container of every pod. */
export const CONTAINER_NAME = "sandbox";
/** Memory of the pod beyond the program's own address-space cap (the bootstrap, the shell, exec shims), bytes. */
export const POD_MEMORY_SLACK = 256 * 1024 * 1024;
/** Seconds a job's pod may live beyond its program's wall limit (start, files, removal). */
export const JOB_DEADLINE_SLACK_S = 120;
/** Environment user modes. */
export type EnvironmentUser = "non-root" | "image";
/** uid and gid of an environment's commands in "non-root" mode (nobody, as the local and docker backends). */
export const ENVIRONMENT_UID = 65534;

/** A Kubernetes label value: at most 63 of [A-Za-z0-9._-], starting and ending alphanumeric. */
export function labelValue(text: string): string {
  const v = text
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "");
  return v === "" ? "none" : v;
}

/** A DNS-1123 label (namespace and pod names): lower-case alphanumerics and '-', at most 63. */
export function dnsLabel(text: string, max = 63): string {
  const v = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .slice(0, max)
    .replace(/^-+|-+$/g, "");
  return v === "" ? "x" : v;
}

function baseLabels(assessment: string): Record<string, string> {
  return { [MANAGED_BY_LABEL]: "a2a-bench", [ASSESSMENT_LABEL]: assessment };
}

/** The assessment's own namespace (created and deleted by us); Pod Security "restricted" unless root is asked for. */
export function namespaceManifest(name: string, assessment: string, restricted: boolean): V1Namespace {
  const level = restricted ? "restricted" : "baseline";
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      name,
      labels: {
        ...baseLabels(assessment),
        "pod-security.kubernetes.io/enforce": level,
        "pod-security.kubernetes.io/warn": level,
      },
    },
  };
}

/** Name of the assessment's deny-all NetworkPolicy. */
export function networkPolicyName(assessment: string): string {
  return dnsLabel(`a2a-bench-deny-${assessment}`);
}

/** No ingress and no egress for every pod of the assessment (nothing is allowed: both lists empty). */
export function denyAllPolicy(namespace: string, assessment: string): V1NetworkPolicy {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: networkPolicyName(assessment), namespace, labels: baseLabels(assessment) },
    spec: {
      podSelector: { matchLabels: { [ASSESSMENT_LABEL]: assessment } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [],
      egress: [],
    },
  };
}

/** What one pod is made of. */
export interface PodParts {
  name: string;
  namespace: string;
  assessment: string;
  role: "job" | "environment";
  image: string;
  imagePullPolicy: "Always" | "IfNotPresent" | "Never";
  limits: SandboxLimits;
  /** The platform's own end of the pod, seconds. */
  deadlineSeconds: number;
  /** Run as this uid (non-root); null: the image's user with a writable root. */
  uid: number | null;
  /** A writable emptyDir here, the working directory (non-root pods). */
  workDir?: string;
  owner?: string;
}

/** The pod: its one container sleeps; every command arrives through the exec subresource. */
export function podManifest(p: PodParts): V1Pod {
  const nonRoot = p.uid !== null;
  const container: V1SecurityContext = {
    allowPrivilegeEscalation: false,
    privileged: false,
    capabilities: { drop: ["ALL"] },
    readOnlyRootFilesystem: nonRoot,
    ...(nonRoot ? { runAsNonRoot: true, runAsUser: p.uid!, runAsGroup: p.uid! } : {}),
  };
  const disk = p.limits.diskBytes ?? ENVIRONMENT_DISK_BYTES;
  const volumes: NonNullable<V1Pod["spec"]>["volumes"] = [
    { name: "tmp", emptyDir: { medium: "Memory", sizeLimit: String(TMPFS_BYTES) } },
  ];
  const mounts = [{ name: "tmp", mountPath: "/tmp" }];
  if (nonRoot && p.workDir !== undefined && p.workDir !== "/tmp") {
    volumes.push({ name: "work", emptyDir: { sizeLimit: String(disk) } });
    mounts.push({ name: "work", mountPath: p.workDir });
  }
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: p.name,
      namespace: p.namespace,
      labels: {
        ...baseLabels(p.assessment),
        [ROLE_LABEL]: p.role,
        ...(p.owner !== undefined ? { [OWNER_LABEL]: labelValue(p.owner) } : {}),
      },
    },
    spec: {
      restartPolicy: "Never",
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      activeDeadlineSeconds: p.deadlineSeconds,
      terminationGracePeriodSeconds: 0,
      securityContext: {
        seccompProfile: { type: "RuntimeDefault" },
        ...(nonRoot ? { runAsNonRoot: true, runAsUser: p.uid!, runAsGroup: p.uid!, fsGroup: p.uid! } : {}),
      },
      containers: [
        {
          name: CONTAINER_NAME,
          image: p.image,
          imagePullPolicy: p.imagePullPolicy,
          // A sleeper as the main process (pid 1 of the pod): commands come through exec.
          command: ["sleep", String(p.deadlineSeconds + 60)],
          ...(p.workDir !== undefined ? { workingDir: p.workDir } : {}),
          resources: {
            limits: {
              memory: String(p.limits.memoryBytes + POD_MEMORY_SLACK),
              cpu: "1",
              "ephemeral-storage": String(disk),
            },
            requests: { memory: String(64 * 1024 * 1024), cpu: "100m" },
          },
          securityContext: container,
          volumeMounts: mounts,
        },
      ],
      volumes,
    },
  };
}
