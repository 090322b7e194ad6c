/**
 * Bytes a container wrote to its own disk: the engine's `SizeRw` (the size
 * of the writable layer's files, walked by the engine on request). The one
 * disk bound an overlay2 engine without project quotas offers every
 * container (`--storage-opt size` needs xfs with pquota): the environment
 * watches it (docker-environment.ts). A tmpfs mount is not in it (those are
 * RAM, capped by their size and the memory cgroup).
 */
import { docker } from "./docker-cli.js";
import { engineRequest, engineSocketPath } from "./engine-api.js";

/** Limit of one measurement, ms (the engine walks the layer: a large one on a busy disk takes seconds). */
export const LAYER_SIZE_TIMEOUT_MS = 30_000;

/** The writable layer's bytes, or a string saying why it could not be measured. Never rejects. */
export async function layerBytes(id: string, env: NodeJS.ProcessEnv): Promise<number | string> {
  const socket = engineSocketPath(env);
  if (socket !== null) {
    try {
      const a = await engineRequest(
        socket,
        "GET",
        `/containers/${encodeURIComponent(id)}/json?size=1`,
        undefined,
        LAYER_SIZE_TIMEOUT_MS,
      );
      const size = (a.body as { SizeRw?: unknown } | null)?.SizeRw;
      if (a.status === 200 && typeof size === "number") return size;
      return `the engine answered ${a.status}: ${a.message.slice(0, 300)}`;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }
  const r = await docker(["container", "inspect", "--size", "--format", "{{.SizeRw}}", id], {
    env,
    timeoutMs: LAYER_SIZE_TIMEOUT_MS,
  });
  const n = Number(r.stdout.trim());
  if (r.exitCode === 0 && Number.isSafeInteger(n)) return n;
  return `docker container inspect --size: exit ${r.exitCode ?? r.signal}: ${r.stderr.trim().slice(-300)}`;
}
