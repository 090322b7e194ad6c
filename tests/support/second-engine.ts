/**
 * A second container engine for the docker pool's tests: its own dockerd (scripts/container-engine.sh start
 * on a fresh state dir), holding the base image copied from the test engine (`docker save | docker load`),
 * stopped again by `stop()`. `kill()` ends its dockerd with SIGKILL (an engine that dies mid-run).
 */
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "../../src/process/index.js";
import { BASE_IMAGE } from "./container-engine.js";

const SCRIPT = fileURLToPath(new URL("../../scripts/container-engine.sh", import.meta.url));
/** Limit of starting, loading and stopping, ms: a stuck dockerd, not a slow host (each polls states). */
const ENGINE_MS = 600_000;
/** Unmount what lies under $1 (deepest first), then remove it. */
const CLEAN = `grep -F " $1/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l; rm -rf -- "$1"`;

export interface SecondEngine {
  url: string;
  dir: string;
  /** SIGKILL its dockerd (containerd and the containers stay until stop()). */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSecondEngine(
  first: NodeJS.ProcessEnv,
  images: readonly string[] = [BASE_IMAGE],
): Promise<SecondEngine> {
  const dir = await mkdtemp(join(tmpdir(), "a2a-pool-engine-"));
  const start = await runCommand("bash", [SCRIPT, "start", dir], { timeoutMs: ENGINE_MS });
  if (start.exitCode !== 0) throw new Error(`second engine did not start: ${start.stderr}`);
  const url = `unix://${dir}/docker.sock`;
  const stop = async (): Promise<void> => {
    await runCommand("bash", [SCRIPT, "stop", dir], { timeoutMs: ENGINE_MS });
    // A dockerd killed with SIGKILL leaves its mounts (overlays, network namespaces, the data root): lazily
    // unmounted, deepest first, then its images and layers (hundreds of MB) removed.
    const clean = await runCommand("bash", ["-c", CLEAN, "clean", dir], { timeoutMs: ENGINE_MS });
    if (clean.exitCode !== 0) throw new Error(`removing the second engine's ${dir} failed: ${clean.stderr}`);
  };
  for (const image of images) {
    const load = await runCommand(
      "bash",
      ["-c", `docker save "$1" | DOCKER_HOST="$2" docker load`, "load", image, url],
      { timeoutMs: ENGINE_MS, env: first },
    );
    if (load.exitCode !== 0) {
      await stop();
      throw new Error(`loading ${image} into the second engine failed: ${load.stderr}`);
    }
  }
  return {
    url,
    dir,
    async kill() {
      const pid = Number((await readFile(join(dir, "docker.pid"), "utf8")).trim());
      process.kill(pid, "SIGKILL");
    },
    stop,
  };
}
