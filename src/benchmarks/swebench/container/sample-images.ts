/**
 * Test-bed images for the embedded instance set, shaped like the official
 * per-instance images (repository at /testbed at base_commit, git inside) but
 * built locally FROM the project's base image, with no registry: one image
 * per instance, named by a template like the official one. Used by the tests
 * and `npm run bench`; real SWE-bench uses the official images.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BenchError } from "../../../util/errors.js";
import { docker, cliFailure } from "../../../sandbox/docker/docker-cli.js";
import { gitOk } from "../git.js";
import { locateRepo } from "../repo-locator.js";
import type { SampleDataset } from "../sample-dataset.js";
import { imageFor } from "./image-name.js";

/** Template of the sample images (the official one under our own namespace). */
export const SAMPLE_IMAGE_TEMPLATE = "a2a-bench-test/sweb.eval.{arch}.{instance_key}:latest";
/** Label on the sample images (cleanup finds them by it). */
export const SAMPLE_IMAGE_LABEL = "a2a-bench.sample-image";

/** Build (or reuse, by the base commit label) one /testbed image per instance; returns id → image. */
export async function buildSampleImages(
  ds: SampleDataset,
  env: NodeJS.ProcessEnv,
  baseImage = "a2a-bench/debian-base:bookworm",
): Promise<Record<string, string>> {
  const images: Record<string, string> = {};
  for (const inst of ds.instances) {
    const tag = imageFor(inst.instance_id, { template: SAMPLE_IMAGE_TEMPLATE });
    const have = await docker(
      ["image", "inspect", "--format", `{{index .Config.Labels "${SAMPLE_IMAGE_LABEL}"}}`, tag],
      { env },
    );
    if (have.exitCode === 0 && have.stdout.trim() === inst.base_commit) {
      images[inst.instance_id] = tag;
      continue;
    }
    const ctxDir = await mkdtemp(join(tmpdir(), "a2a-swe-img-"));
    try {
      await gitOk(ctxDir, ["clone", "--quiet", "--no-hardlinks", locateRepo(ds.reposDir, inst.repo), "testbed"]);
      await gitOk(join(ctxDir, "testbed"), ["checkout", "--quiet", "--detach", inst.base_commit]);
      await writeFile(
        join(ctxDir, "Dockerfile"),
        [
          `FROM ${baseImage}`,
          `LABEL ${SAMPLE_IMAGE_LABEL}=${inst.base_commit}`,
          "COPY testbed /testbed",
          "WORKDIR /testbed",
          "",
        ].join("\n"),
      );
      const built = await docker(["build", "--network", "none", "-q", "-t", tag, ctxDir], {
        env,
        signal: AbortSignal.timeout(300_000),
      });
      if (built.exitCode !== 0) throw new BenchError("E_SAMPLE_IMAGE", cliFailure(`building ${tag}`, built));
      images[inst.instance_id] = tag;
    } finally {
      await rm(ctxDir, { recursive: true, force: true });
    }
  }
  return images;
}
