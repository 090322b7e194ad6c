/**
 * The local (bwrap) sandbox as the green agent runs it: inside the runner image, as its non-root user, with
 * the options .ci/images gives the green container. The image holds the package at /app (dist/ with the
 * embedded sample datasets) and /app/results; a job must see none of it, nor HOME, only the allowlist.
 * This checkout's built dist/ is mounted read-only into the container (the image's own copy may be older).
 * Skipped when the image a2a-bench-runner:ci is not in the engine (.ci/images builds it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { docker } from "../../../src/sandbox/docker/docker-cli.js";
import { packageRoot } from "../../../src/util/package-root.js";
import { testEngine } from "../../support/container-engine.js";
import { FS_PROBE, realLeaks, type ProbeResult } from "../fs-probe.js";

const RUNNER_IMAGE = "a2a-bench-runner:ci";
const engine = await testEngine();
const hasImage =
  engine.env !== null &&
  (await docker(["image", "inspect", "--format", "{{.Id}}", RUNNER_IMAGE], { env: engine.env })).exitCode === 0;
const built = existsSync(join(packageRoot, "dist", "sandbox", "index.js"));
/** What .ci/images gives the green container so that bubblewrap works as a non-root user there. */
const SANDBOX_OPTS = ["seccomp=unconfined", "systempaths=unconfined", "apparmor=unconfined"].flatMap((o) => [
  "--security-opt",
  o,
]);

const SCRIPT = String.raw`
import { readFileSync } from "node:fs";
const { createSandbox } = await import("/w/dist/sandbox/index.js");
const { silentLogger } = await import("/w/dist/util/logger.js");
const sb = await createSandbox({ backend: "local", logger: silentLogger(), hiddenPaths: ["/app", "/app/results", "/w"] });
const sensitive = ["/app", "/app/dist/benchmarks/humaneval/sample-dataset.js", "/app/results", "/w/package.json", "/home/node", "/etc/shadow", "/root"];
const env = { A2A_PROBE: JSON.stringify({ sensitive, skip: ["/usr", "/proc", "/dev", "/sys"] }) };
const code = readFileSync("/chk/probe.py", "utf8");
const [forked, alone] = await Promise.all([
  sb.exec({ language: "python", code, timeoutMs: 60000, env }),
  sb.exec({ language: "bash", code: "ls -A /", timeoutMs: 20000 }),
]);
console.log("RESULT:" + JSON.stringify({ isolation: sb.isolation, mode: sb.forkServerMode, uid: process.getuid(), forked, alone }));
await sb.close();
`;

describe.skipIf(!hasImage || !built)(
  `local sandbox inside the runner image${hasImage ? "" : ` (skipped: ${RUNNER_IMAGE} not in the engine)`}`,
  () => {
    let chk: string;
    beforeAll(() => {
      chk = mkdtempSync(join(tmpdir(), "a2a-runner-view-"));
      chmodSync(chk, 0o755); // the image's user (node, uid 1000) reads it
      writeFileSync(join(chk, "probe.py"), FS_PROBE, { mode: 0o644 });
      writeFileSync(join(chk, "run.mjs"), SCRIPT, { mode: 0o644 });
    });
    afterAll(() => rmSync(chk, { recursive: true, force: true }));

    it("a job sees the allowlist: no /app, no results, no HOME, no checkout", async () => {
      const r = await docker(
        [
          "run",
          "--rm",
          "--network",
          "none",
          ...SANDBOX_OPTS,
          "-v",
          `${packageRoot}:/w:ro`,
          "-v",
          `${chk}:/chk:ro`,
          "--entrypoint",
          "node",
          RUNNER_IMAGE,
          "/chk/run.mjs",
        ],
        { env: engine.env! },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT:"));
      const got = JSON.parse(line!.slice("RESULT:".length)) as {
        isolation: string;
        mode: string;
        uid: number;
        forked: { stdoutTail: string; stderrTail: string };
        alone: { stdoutTail: string };
      };
      expect(got).toMatchObject({ isolation: "bwrap", mode: "shared" });
      expect(got.uid).not.toBe(0);
      const probeLine = got.forked.stdoutTail.split("\n").find((l) => l.startsWith("A2A_PROBE_RESULT:"));
      expect(probeLine, got.forked.stderrTail).toBeDefined();
      const probe = JSON.parse(probeLine!.slice("A2A_PROBE_RESULT:".length)) as ProbeResult;
      const system = ["bin", "dev", "etc", "lib", "lib64", "proc", "root", "sbin", "tmp", "usr", "var"];
      expect(probe.top.filter((t) => !system.includes(t))).toEqual([]);
      expect(
        got.alone.stdoutTail
          .trim()
          .split("\n")
          .filter((t) => !system.includes(t)),
      ).toEqual([]);
      expect(probe.readable.filter((p) => !p.startsWith("/etc/") && !p.startsWith("/tmp/"))).toEqual([]);
      expect(realLeaks(probe.leaks, [])).toEqual([]);
    });
  },
);
