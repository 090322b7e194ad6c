/**
 * `a2a-bench sandbox check BACKEND [--image IMG] [--files-dir DIR] [--json]`: run the sandbox conformance
 * suite (src/sandbox/conformance/) on a registered backend, here, with its engine or service as the
 * environment selects it (DOCKER_HOST, A2A_BENCH_DOCKER_HOSTS, E2B_*).
 */
import type { CliCommand, CliIo } from "./types.js";
import { UsageError } from "../util/errors.js";
import { parseUsage } from "../util/parse-usage.js";
import { sandboxBackend, sandboxBackendNames } from "../sandbox/registry.js";

export const usage = `Usage: a2a-bench sandbox check BACKEND [--image IMG] [--files-dir DIR] [--json]

Runs the sandbox conformance suite on BACKEND (${sandboxBackendNames().join(" | ")}) on this machine: exec,
files, limits, timeout, cancellation, network, cleanup, environments. Each check prints ✓ passed, ✗ failed
(with what was seen) or – not applicable (the backend does not claim it; never counted as passed).
Exit 0 only when no check failed.

  --image IMG       image an environment starts from (backends with images: docker, docker-pool, e2b)
  --files-dir DIR   a directory an environment can write (default /tmp/a2a-conformance; docker: /a2a-conformance)
  --json            one JSON array of results instead of lines
`;

export interface SandboxCheckArgs {
  backend: string;
  image?: string;
  filesDir?: string;
  json: boolean;
}

/** Parse argv (pure). */
export function parseSandboxArgs(argv: string[]): SandboxCheckArgs {
  const parsed = parseUsage({
    args: argv,
    allowPositionals: true,
    options: { image: { type: "string" }, "files-dir": { type: "string" }, json: { type: "boolean" } },
  });
  const [verb, backend, ...extra] = parsed.positionals;
  if (verb !== "check") throw new UsageError(`a2a-bench sandbox: the one verb is "check", got ${JSON.stringify(verb)}`);
  if (backend === undefined) throw new UsageError("a2a-bench sandbox check: name a backend");
  if (extra.length > 0) throw new UsageError(`a2a-bench sandbox check: unexpected ${extra.join(" ")}`);
  if (!sandboxBackendNames().includes(backend) && !/^<[^<>]+>$/.test(backend))
    throw new UsageError(`BACKEND must be one of ${sandboxBackendNames().join(", ")}, got "${backend}"`);
  const v = parsed.values;
  if (v["files-dir"] !== undefined && !v["files-dir"].startsWith("/"))
    throw new UsageError(`--files-dir must be absolute, got "${v["files-dir"]}"`);
  return {
    backend,
    ...(v.image !== undefined ? { image: v.image } : {}),
    ...(v["files-dir"] !== undefined ? { filesDir: v["files-dir"] } : {}),
    json: v.json === true,
  };
}

export const command: CliCommand = {
  name: "sandbox",
  summary:
    "run the conformance suite on a sandbox backend (exec, files, limits, timeouts, network, cleanup, environments)",
  usage,
  async run(argv: string[], io: CliIo): Promise<number> {
    const args = parseSandboxArgs(argv);
    const { runConformance, formatConformance } = await import("../sandbox/conformance/index.js");
    const results = await runConformance(sandboxBackend(args.backend), {
      ...(args.image !== undefined ? { image: args.image } : {}),
      ...(args.filesDir !== undefined ? { filesDir: args.filesDir } : {}),
      owner: `conformance-${process.pid}`,
    });
    io.stdout.write(args.json ? JSON.stringify(results, null, 2) + "\n" : formatConformance(args.backend, results));
    return results.some((r) => r.status === "failed") ? 1 : 0;
  },
};
