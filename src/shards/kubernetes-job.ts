/**
 * An assessment's N shards as a Kubernetes Indexed Job: the manifest (a
 * `batch/v1` Job, `completionMode: Indexed`, `completions` = `parallelism`
 * bound = N shards) that `kubectl apply -f` takes. Kubernetes gives each pod
 * its index in `JOB_COMPLETION_INDEX`; the pod runs shard `index` of N into
 * `<out>/shard-<index>` on a shared volume (a ReadWriteMany claim), resuming
 * from its checkpoint when the pod is a retry of a failed one
 * (`backoffLimitPerIndex`: each index retried on its own). Each row's
 * provenance names the pod (`A2A_BENCH_WORKER` from `metadata.name`), engine
 * `kubernetes`. Once the Job is complete, `a2a-bench merge <out>/shard-0 …
 * --out <out>/merged` (in a pod on the same volume, or after copying the
 * directories out) merges them. Pure: nothing here talks to a cluster.
 */
import { CHECKPOINT_FILE } from "../runner/checkpoint.js";
import { ENGINE_ENV, WORKER_ENV } from "../runner/worker-log.js";

export interface IndexedJobSpec {
  /** Job name (a DNS label). */
  name: string;
  namespace?: string;
  /** An image with node and this package (the runner image of the Dockerfile). */
  image: string;
  benchmark: string;
  runId: string;
  shards: number;
  /** Pods at once (default: all shards). */
  parallelism?: number;
  /** The CLI entry in the image (default `/app/dist/cli.js`, as in the runner image). */
  cli?: string;
  /** The ReadWriteMany PersistentVolumeClaim every pod mounts at `/results`. */
  claim: string;
  /** The ConfigMap holding the shards' config as key `config.json` (mounted at `/config`). */
  configMap: string;
  /** Retries of one index after its pod failed (default 2). */
  retriesPerIndex?: number;
  /** Each pod's limits and requests. */
  resources?: { cpu: string; memory: string };
  /** Each pod's deadline, seconds (`activeDeadlineSeconds` of the Job). */
  deadlineSeconds?: number;
}

/** The label every object of a sharded run carries (`a2a-bench.shards=<run id>`), for clean-up. */
export const KUBERNETES_LABEL = "a2a-bench.shards";

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** The script a pod runs: shard `$JOB_COMPLETION_INDEX`, resumed when its checkpoint exists. */
export function podScript(spec: IndexedJobSpec): string {
  const cli = spec.cli ?? "/app/dist/cli.js";
  return [
    `O=/results/${spec.runId}/shard-$JOB_COMPLETION_INDEX`,
    `if [ -f "$O/${CHECKPOINT_FILE}" ]; then R=--resume; else R=--force; fi`,
    `exec node ${quote(cli)} run ${quote(spec.benchmark)} --config-file /config/config.json` +
      ` --shard-index "$JOB_COMPLETION_INDEX" --num-shards ${spec.shards}` +
      ` --run-id ${quote(spec.runId)}-shard-"$JOB_COMPLETION_INDEX" --out "$O" --events $R`,
  ].join("\n");
}

/** The Indexed Job manifest (a plain object: `JSON.stringify` it, or write it as YAML). */
export function indexedJobManifest(spec: IndexedJobSpec): Record<string, unknown> {
  const labels = { [KUBERNETES_LABEL]: spec.runId, "app.kubernetes.io/name": "a2a-bench-shard" };
  const resources = spec.resources ?? { cpu: "1", memory: "2Gi" };
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: spec.name, ...(spec.namespace ? { namespace: spec.namespace } : {}), labels },
    spec: {
      completionMode: "Indexed",
      completions: spec.shards,
      parallelism: spec.parallelism ?? spec.shards,
      backoffLimitPerIndex: spec.retriesPerIndex ?? 2,
      maxFailedIndexes: 0,
      ...(spec.deadlineSeconds ? { activeDeadlineSeconds: spec.deadlineSeconds } : {}),
      ttlSecondsAfterFinished: 86_400,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: "Never",
          automountServiceAccountToken: false,
          securityContext: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 1000 },
          containers: [
            {
              name: "shard",
              image: spec.image,
              command: ["sh", "-c", podScript(spec)],
              env: [
                { name: WORKER_ENV, valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
                { name: ENGINE_ENV, value: "kubernetes" },
              ],
              resources: { requests: resources, limits: resources },
              securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
              volumeMounts: [
                { name: "results", mountPath: "/results" },
                { name: "config", mountPath: "/config", readOnly: true },
              ],
            },
          ],
          volumes: [
            { name: "results", persistentVolumeClaim: { claimName: spec.claim } },
            { name: "config", configMap: { name: spec.configMap } },
          ],
        },
      },
    },
  };
}
