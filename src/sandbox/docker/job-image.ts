/**
 * Whether an image may hold untrusted jobs. The images this package builds for its agents (Dockerfile:
 * agent, runner, green, purple) carry the package itself (/app: dist/ with the embedded sample datasets
 * and their canonical solutions, node_modules, schemas) and are labelled so; a job in such an image
 * could read all of it. The docker backend refuses them (an operator's A2A_BENCH_DOCKER_IMAGE pointing
 * at the runner image, say) and names the image to use instead.
 */
import { docker, cliFailure } from "./docker-cli.js";

/** Label the Dockerfile sets on every image that holds the package (its value: where). */
export const HOLDS_PACKAGE_LABEL = "org.a2a-bench.holds-package";

/** null when `image` may run jobs, else why not (an engine failure is a reason too: fail closed). */
export async function jobImageProblem(image: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const r = await docker(["image", "inspect", "--format", "{{json .Config.Labels}}", image], { env });
  if (r.exitCode !== 0) {
    const missing = /No such image|image not known|not found/i.test(r.stderr)
      ? ` (the image must be in engine ${r.engine}: build it there, or pull/load it where a registry is reachable; is DOCKER_HOST the engine you meant?)`
      : "";
    return cliFailure(`docker image inspect ${image}`, r) + missing;
  }
  let labels: Record<string, string> | null;
  try {
    labels = JSON.parse(r.stdout.trim() || "null") as Record<string, string> | null;
  } catch {
    return `docker image inspect ${image}: unreadable labels ${r.stdout.trim().slice(0, 200)}`;
  }
  const where = labels?.[HOLDS_PACKAGE_LABEL];
  if (where === undefined) return null;
  return (
    `image ${image} holds the a2a-bench package (${where}: its embedded datasets and code), so untrusted jobs ` +
    `must not run in it; use a job image without it (the default a2a-bench/debian-base:bookworm)`
  );
}
