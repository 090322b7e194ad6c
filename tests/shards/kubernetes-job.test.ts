/**
 * The Kubernetes Indexed Job manifest's shape (no cluster here): one pod per
 * shard with its index from JOB_COMPLETION_INDEX, retried per index and
 * resumed from its checkpoint, non-root, limits set, the pod named as the
 * worker, the shared claim and the config mounted. The pod's script is run by
 * sh here with the index set, to see the runner command it starts.
 */
import { execFileSync } from "node:child_process";
import { expect, test } from "vitest";
import { indexedJobManifest, podScript, type IndexedJobSpec } from "../../src/shards/kubernetes-job.js";

const spec: IndexedJobSpec = {
  name: "he-shards",
  namespace: "evals",
  image: "registry.example/a2a-bench-runner:1",
  benchmark: "humaneval",
  runId: "he-1",
  shards: 4,
  parallelism: 2,
  claim: "a2a-results",
  configMap: "he-1-config",
};

test("an Indexed Job of N completions, one pod per shard, non-root, limited, retried per index", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a manifest read by its paths, as kubectl does
  const job = indexedJobManifest(spec) as any;
  expect(job).toMatchObject({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "he-shards", namespace: "evals" },
  });
  expect(job.spec).toMatchObject({
    completionMode: "Indexed",
    completions: 4,
    parallelism: 2,
    backoffLimitPerIndex: 2,
    maxFailedIndexes: 0,
  });
  const pod = job.spec.template.spec;
  expect(pod).toMatchObject({ restartPolicy: "Never", automountServiceAccountToken: false });
  expect(pod.securityContext.runAsNonRoot).toBe(true);
  const [c] = pod.containers;
  expect(c.image).toBe(spec.image);
  expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
  expect(c.resources.limits).toEqual({ cpu: "1", memory: "2Gi" });
  expect(c.env).toContainEqual({ name: "A2A_BENCH_WORKER", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } });
  expect(c.env).toContainEqual({ name: "A2A_BENCH_ENGINE", value: "kubernetes" });
  expect(pod.volumes).toContainEqual({ name: "results", persistentVolumeClaim: { claimName: "a2a-results" } });
  expect(job.metadata.labels["a2a-bench.shards"]).toBe("he-1");
  expect(JSON.parse(JSON.stringify(job))).toEqual(job); // plain JSON, what kubectl apply takes
});

test("each pod runs its index's shard, fresh or resumed from its checkpoint", () => {
  const script = podScript(spec);
  // sh with `exec` replaced by echo: the command the pod would start.
  const shown = (index: string): string =>
    execFileSync("sh", ["-c", script.replace("exec node", "echo node")], {
      env: { PATH: process.env["PATH"], JOB_COMPLETION_INDEX: index },
      encoding: "utf8",
    }).trim();
  expect(shown("2")).toBe(
    "node /app/dist/cli.js run humaneval --config-file /config/config.json --shard-index 2 --num-shards 4" +
      " --run-id he-1-shard-2 --out /results/he-1/shard-2 --events --force",
  );
});
