/**
 * A task's environment image, built from the task's own Dockerfile on the
 * run's container engine and cached by content: the tag holds a sha256 over
 * every file of the build context (relative path, executable bit, bytes),
 * the Dockerfile's base images after the operator's mapping, and those base
 * images' ids. Same content, same tag: a second run (or attempt) finds it and
 * builds nothing (`cacheHit`). A task with `[environment] docker_image` uses
 * that image (mapped the same way).
 *
 * Offline: nothing is pulled. Every base image a `FROM` names must already be
 * in the engine, under its own name or the local image the operator maps it to
 * (`terminal_base_images`, e.g. `ubuntu:24.04` → `a2a-bench/debian-base:bookworm`);
 * the Dockerfile is built from a copy of the context whose `FROM` lines name
 * the mapped images. A missing one is a clear error naming it and the option.
 * The build runs without network (`--network none`) unless the task asks for
 * the network and the operator allows it (`allow_network`; the build then has
 * the engine's default build network), with the task's memory and its build
 * timeout. The cache is per engine: the image is looked up, and built, on the
 * engine whose CLI environment `env` reaches (each engine of a pool its own).
 */
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { cliFailure, docker } from "../../sandbox/docker/docker-cli.js";
import { TerminalEnvironmentError } from "./errors.js";
import type { TerminalTask } from "./task.js";

/** Repository of every image built here: `a2a-bench-terminal/<task>:<content hash>`. */
export const IMAGE_REPOSITORY = "a2a-bench-terminal";
/** Label on every image built here (its value the task id): `docker images --filter label=a2a-bench.terminal`. */
export const IMAGE_LABEL = "a2a-bench.terminal";

export interface BuildOptions {
  /** Base image name in FROM → local image (the operator's `terminal_base_images`). */
  baseImages: Readonly<Record<string, string>>;
  /** Whether the build may use the network (the task asks and the operator allows). */
  network: boolean;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

export interface BuiltImage {
  image: string;
  /** True when the image was already in the engine (no build ran). */
  cacheHit: boolean;
  buildSeconds: number;
}

/** Every file of `dir`, sorted, as [relative path, absolute path]. */
async function filesOf(dir: string): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of (await readdir(d, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push([relative(dir, p), p]);
    }
  };
  await walk(dir);
  return out;
}

const FROM_LINE = /^(\s*FROM\s+)((?:--\S+\s+)*)(\S+)(.*)$/i;

/**
 * The Dockerfile with each external `FROM` image replaced by its mapping; returns the text and the images it
 * now names (a `FROM` of an earlier stage's name is left alone). `ARG`-templated names are left as written.
 */
export function mapBaseImages(
  dockerfile: string,
  baseImages: Readonly<Record<string, string>>,
): { text: string; bases: string[] } {
  const stages = new Set<string>();
  const bases: string[] = [];
  const lines = dockerfile.split("\n").map((line) => {
    const m = FROM_LINE.exec(line);
    if (!m) return line;
    const [, head, flags, image, rest] = m as unknown as [string, string, string, string, string];
    const alias = /\s+AS\s+(\S+)/i.exec(rest)?.[1];
    const isStage = stages.has(image.toLowerCase());
    if (alias) stages.add(alias.toLowerCase());
    if (isStage) return line;
    const mapped = baseImages[image] ?? image;
    bases.push(mapped);
    return `${head}${flags}${mapped}${rest}`;
  });
  return { text: lines.join("\n"), bases };
}

/** The id of `image` in the engine, or null when it is not there. */
async function imageId(image: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const r = await docker(["image", "inspect", "--format", "{{.Id}}", image], { env, timeoutMs: 120_000 });
  return r.exitCode === 0 ? r.stdout.trim() : null;
}

function missingBase(task: TerminalTask, image: string, env: NodeJS.ProcessEnv): TerminalEnvironmentError {
  return new TerminalEnvironmentError(
    "E_TERMINAL_BASE_IMAGE",
    `task ${task.id}: the base image ${image} is not in the engine ${env["DOCKER_HOST"] ?? "(default)"} ` +
      `and nothing is pulled; load it, or map it to a local image with terminal_base_images ` +
      `(e.g. {"${image}": "a2a-bench/debian-base:bookworm"})`,
  );
}

/** Builds in flight by engine and tag: attempts of one task started together on one engine build once. */
const inFlight = new Map<string, Promise<BuiltImage>>();

/** The task's environment image: built (or found) for its content. Throws TerminalEnvironmentError. */
export async function environmentImage(task: TerminalTask, o: BuildOptions): Promise<BuiltImage> {
  if (task.environmentDir === undefined) {
    const image = o.baseImages[task.dockerImage!] ?? task.dockerImage!;
    if ((await imageId(image, o.env)) === null) throw missingBase(task, image, o.env);
    return { image, cacheHit: true, buildSeconds: 0 };
  }
  const files = await filesOf(task.environmentDir);
  const dockerfile = await readFile(join(task.environmentDir, "Dockerfile"), "utf8");
  const mapped = mapBaseImages(dockerfile, o.baseImages);
  const hash = createHash("sha256");
  hash.update(`network=${o.network}\n`);
  for (const base of mapped.bases) {
    const id = await imageId(base, o.env);
    if (id === null) throw missingBase(task, base, o.env);
    hash.update(`base ${base} ${id}\n`);
  }
  for (const [rel, abs] of files) {
    const mode = (await stat(abs)).mode & 0o111 ? "x" : "-";
    hash.update(`${rel}\0${mode}\0`);
    hash.update(rel === "Dockerfile" ? mapped.text : await readFile(abs));
    hash.update("\0");
  }
  const name =
    task.id
      .toLowerCase()
      .replace(/[^a-z0-9._-]/g, "-")
      .replace(/^[^a-z0-9]+/, "") || "task";
  const tag = `${IMAGE_REPOSITORY}/${name.slice(0, 100)}:${hash.digest("hex").slice(0, 24)}`;
  // Per engine: each engine of a pool builds (or finds) its own copy.
  const key = `${o.env["DOCKER_HOST"] ?? ""}\0${tag}`;
  const running = inFlight.get(key);
  if (running) return running;
  const build = buildOnce(task, tag, mapped.text, o).finally(() => inFlight.delete(key));
  inFlight.set(key, build);
  return build;
}

async function buildOnce(task: TerminalTask, tag: string, dockerfile: string, o: BuildOptions): Promise<BuiltImage> {
  if ((await imageId(tag, o.env)) !== null) return { image: tag, cacheHit: true, buildSeconds: 0 };
  const started = performance.now();
  const staging = await mkdtemp(join(tmpdir(), "a2a-terminal-build-"));
  try {
    await cp(task.environmentDir!, staging, { recursive: true });
    await writeFile(join(staging, "Dockerfile"), dockerfile);
    const r = await docker(
      [
        "build",
        "--quiet",
        "--tag",
        tag,
        "--network",
        o.network ? "default" : "none",
        "--memory",
        String(task.memoryMb * 1024 * 1024),
        "--label",
        `${IMAGE_LABEL}=${task.id}`,
        staging,
      ],
      {
        env: o.env,
        timeoutMs: task.buildTimeoutSec * 1000,
        ...(o.signal ? { signal: o.signal } : {}),
      },
    );
    if (r.timedOut)
      throw new TerminalEnvironmentError(
        "E_TERMINAL_BUILD_TIMEOUT",
        `task ${task.id}: the environment's build did not end within its build_timeout_sec (${task.buildTimeoutSec} s)`,
      );
    if (r.exitCode !== 0)
      throw new TerminalEnvironmentError(
        "E_TERMINAL_BUILD",
        cliFailure(`task ${task.id}: building its environment`, r),
      );
    return { image: tag, cacheHit: false, buildSeconds: (performance.now() - started) / 1000 };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
