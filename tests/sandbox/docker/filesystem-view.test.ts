/**
 * What a docker job can read: its container mounts nothing of the host but the engine's own
 * /etc/hosts, /etc/hostname and /etc/resolv.conf (no checkout, datasets, results, caches or engine
 * socket), its image holds none of them, and a concurrent job's files (same container, per-run mode)
 * stay unreadable. The job walks the filesystem and reads /proc/self/mountinfo.
 */
import { afterAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createDockerSandbox, type DockerSandbox } from "../../../src/sandbox/docker/docker-sandbox.js";
import { DEFAULT_LIMITS } from "../../../src/sandbox/limits.js";
import { packageRoot } from "../../../src/util/package-root.js";
import { silentLogger } from "../../../src/util/logger.js";
import { BASE_IMAGE, testEngine } from "../../support/container-engine.js";
import { HOLDS_PACKAGE_LABEL } from "../../../src/sandbox/docker/job-image.js";
import { docker } from "../../../src/sandbox/docker/docker-cli.js";
import { FS_PROBE, holderProgram, probeResult, realLeaks } from "../fs-probe.js";

const engine = await testEngine();
const datasets = process.env["A2A_BENCH_DATASETS"] ?? join(packageRoot, "..", "shared", "datasets");
/** Mount points the engine itself adds to every container (name resolution), besides / and the kernel's. */
const ENGINE_FILES = new Set(["/etc/hosts", "/etc/hostname", "/etc/resolv.conf"]);
/** Kernel and engine file systems: not host directories. */
const VIRTUAL_FS = new Set(["proc", "sysfs", "tmpfs", "devpts", "mqueue", "cgroup", "cgroup2", "overlay", "shm"]);

/** `docker build -t tag -` with `dockerfile` on stdin. */
function dockerBuild(dockerfile: string, tag: string, env: NodeJS.ProcessEnv) {
  return docker(["build", "-q", "-t", tag, "-"], { env, stdin: dockerfile });
}

const MOUNTS = String.raw`
import json
out = []
for line in open("/proc/self/mountinfo"):
    left, right = line.split(" - ", 1)
    f = left.split()
    out.append({"root": f[3], "at": f[4], "fs": right.split()[0]})
print(json.dumps(out))
`;

describe.skipIf(engine.env === null)(
  `docker job containers show a job only its own files${engine.skipReason ? ` (skipped: ${engine.skipReason})` : ""}`,
  () => {
    const opened: DockerSandbox[] = [];
    afterAll(async () => {
      for (const s of opened) await s.close();
    });
    const sensitive = [
      join(packageRoot, "package.json"),
      packageRoot,
      datasets,
      "/var/run/docker.sock",
      "/run/docker.sock",
      "/etc/shadow",
      "/root",
      "/app",
    ];

    it("an image labelled as holding the package (the runner/green images) is refused for jobs", async () => {
      // Built here from the base image with the Dockerfile's label only (no network, a second or so).
      const tag = "a2a-bench-test/holds-package:fsview";
      const built = await dockerBuild(`FROM ${BASE_IMAGE}\nLABEL ${HOLDS_PACKAGE_LABEL}="/app"\n`, tag, engine.env!);
      expect(built.exitCode, built.stderr).toBe(0);
      const sb = await createDockerSandbox({
        limits: DEFAULT_LIMITS,
        logger: silentLogger(),
        image: tag,
        owner: `test-fsview-${randomBytes(4).toString("hex")}`,
        env: engine.env!,
      });
      opened.push(sb);
      const r = await sb.exec({ language: "python", code: "print(1)", timeoutMs: 10_000 });
      expect(r.exitCode).toBeNull();
      expect(r.infraError).toMatch(/holds the a2a-bench package .*must not run in it/);
    });

    for (const mode of ["per-run", "per-job"] as const) {
      it(`${mode}: no host directory is mounted; the image holds no checkout, dataset or results; a concurrent job's files stay closed`, async () => {
        const sb = await createDockerSandbox({
          limits: DEFAULT_LIMITS,
          logger: silentLogger(),
          concurrency: 2,
          image: BASE_IMAGE,
          mode,
          owner: `test-fsview-${randomBytes(4).toString("hex")}`,
          env: engine.env!,
        });
        opened.push(sb);
        const mounts = await sb.exec({ language: "python", code: MOUNTS, timeoutMs: 30_000 });
        expect(mounts.exitCode, mounts.stderrTail).toBe(0);
        const list = JSON.parse(mounts.stdoutTail) as Array<{ root: string; at: string; fs: string }>;
        // Every mount is a virtual file system or one of the engine's three name-resolution files.
        const hostDirs = list.filter((m) => !VIRTUAL_FS.has(m.fs) && !ENGINE_FILES.has(m.at) && m.at !== "/");
        expect(hostDirs).toEqual([]);
        expect(list.map((m) => m.at).filter((at) => at.includes("docker.sock"))).toEqual([]);

        const marker = `a2a-mark-${randomBytes(6).toString("hex")}`;
        const holder = sb.exec({ language: "python", code: holderProgram(marker, 4), timeoutMs: 30_000 });
        await new Promise((r) => setTimeout(r, 1500));
        const probe = await sb.exec({
          language: "python",
          code: FS_PROBE,
          timeoutMs: 60_000,
          env: { A2A_PROBE: JSON.stringify({ sensitive, marker, skip: ["/proc", "/sys", "/dev", "/usr"] }) },
        });
        const held = await holder;
        const r = probeResult(probe.stdoutTail, probe.stderrTail);
        if (mode === "per-run") expect(held.stdoutTail).toMatch(/^holding /);
        expect(realLeaks(r.leaks, [])).toEqual([]);
        expect(r.marker).toEqual([]);
        expect(r.top).not.toContain("app");
        expect(r.top).not.toContain("work");
        expect(
          r.readable.filter((p) => /HumanEval|results\.json|a2a-bench|swe-?bench|gold[_-]patch|\.jsonl/i.test(p)),
        ).toEqual([]);
        await sb.close();
      });
    }
  },
);
