#!/usr/bin/env node
/**
 * Build the /testbed images of the embedded SWE-bench set (one per instance,
 * FROM a2a-bench/debian-base:bookworm, no registry) on the engine at
 * DOCKER_HOST (or the default one of scripts/container-engine.sh), after
 * `npm run build`. Prints the image per instance and the template to pass as
 * --swebench-image-template.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const { ensureSampleDataset } = await import(join(dist, "benchmarks/swebench/sample-dataset.js"));
const { buildSampleImages, SAMPLE_IMAGE_TEMPLATE } = await import(
  join(dist, "benchmarks/swebench/container/sample-images.js")
);
const { engineEnv, probeEngine } = await import(join(dist, "sandbox/docker/engine.js"));

const env = engineEnv();
const probe = await probeEngine(env);
if (!probe.ok) {
  process.stderr.write(`${probe.reason}\n`);
  process.exit(1);
}
const images = await buildSampleImages(await ensureSampleDataset(), env);
for (const [id, image] of Object.entries(images)) process.stdout.write(`${id}\t${image}\n`);
process.stdout.write(`template: ${SAMPLE_IMAGE_TEMPLATE}\n`);
