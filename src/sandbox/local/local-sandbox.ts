/**
 * The local backend: plain python jobs go to the fork server (one sandbox,
 * a fork per job); everything else (another language, a host work dir,
 * overlays, binds, asRoot) gets one sandbox per exec.
 */
import { chmod, chown, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { removeTree } from "../remove-tree.js";
import { tmpdir, availableParallelism } from "node:os";
import type { Logger } from "../../util/logger.js";
import type { ExecOutcome, ExecRequest, Sandbox, SandboxLimits, SandboxWarmUp } from "../types.js";
import { SandboxError } from "../errors.js";
import { TMPFS_BYTES, TMPFS_INODES } from "../limits.js";
import { Limiter, runCancellable } from "../concurrency.js";
import { SANDBOX_UID, runtimeTrees, type HostTools, type IsolationProbe, type LocalIsolation } from "./probe.js";
import { baseEnv, buildLaunchCommand, type LaunchCommand, type MountSpec } from "./launch-command.js";
import { runProcess } from "./run-process.js";
import { emptyOutcome } from "../types.js";
import { ForkServer } from "./fork-server.js";
import { FORK_SERVER_PROGRAM } from "./fork-server-program.js";
import { lendTree } from "./lend-tree.js";
import { readHostView, type HostViewInput } from "./host-view.js";
import { prepareOverlays, type PreparedOverlays } from "./overlay-mounts.js";
import { refusedRequest, SandboxCapabilityError, type SandboxCapability } from "../capabilities.js";
import { localCapabilities } from "./local-capabilities.js";
import type { Environment, EnvironmentSpec } from "../environment.js";
import { refuseEngineOnly } from "../environment.js";
import { openLocalEnvironment } from "./local-environment.js";

export interface LocalSandboxOptions {
  probe: IsolationProbe;
  limits: SandboxLimits;
  logger: Logger;
  /** Jobs in flight at once; default: available cores. */
  concurrency?: number;
  /**
   * Host paths no job may see (datasets root, checkout, results dir, HOME...): bwrap shows only an
   * allowlist of the host anyway (host-view.ts); these are masked should they lie inside it.
   */
  hidden?: readonly string[];
}

const EXT = { python: "py", bash: "sh", node: "js" } as const;
/** What the "private" fork server needs: mount namespaces and tmpfs, per-job uids, chown of job files, killing jobs. */
const FORK_SERVER_CAPS = ["CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_KILL"] as const;
/** Inside-sandbox paths used by the bwrap level. */
const JOB_DIR = "/tmp/job";
const PROGRAM_DIR = "/tmp/.a2a-program";

/** A job staged on the host: where its program and files were written. */
interface StagedJob {
  staging: string;
  progDir: string;
  jobDir: string;
  progFile: string;
  /** The job's cwd on the host: the request's work dir or the staged job dir. */
  hostCwd: string;
}

function safeRelative(rel: string): boolean {
  const n = normalize(rel);
  return rel.length > 0 && !rel.startsWith("/") && n !== ".." && !n.startsWith("../");
}

/**
 * The fork server's argv: `-S` (no site) when the run said its jobs need the standard library only and PATH's
 * python3 is not a virtual environment's; the modules to load once before any job, as JSON.
 */
export function forkServerProgram(tools: HostTools, prep: SandboxWarmUp, root: string, mode: string): string[] {
  const site = prep.pythonStdlibOnly && !tools.pythonVenv ? ["-S"] : [];
  return [
    tools.python,
    "-I",
    ...site,
    "-B",
    "-c",
    FORK_SERVER_PROGRAM,
    root,
    mode,
    JSON.stringify(prep.pythonModules ?? {}),
  ];
}

export class LocalSandbox implements Sandbox {
  readonly backend = "local" as const;
  readonly isolation: LocalIsolation;
  readonly warnings: readonly string[];
  readonly capabilities: ReadonlySet<SandboxCapability>;
  private readonly limiter: Limiter;
  private readonly forkServer: ForkServer;
  private closed = false;
  private readonly running = new Set<AbortController>();
  private serverRoot: string | null = null;
  private readonly environments = new Set<Environment>();

  constructor(private readonly opts: LocalSandboxOptions) {
    this.isolation = opts.probe.level;
    this.warnings = Object.freeze([...opts.probe.warnings]);
    this.capabilities = localCapabilities(opts.probe);
    this.limiter = new Limiter(opts.concurrency ?? availableParallelism());
    const tools = opts.probe.tools;
    this.forkServer = new ForkServer(() => this.forkServerCommand(), baseEnv(tools, "/tmp", undefined), opts.logger);
  }

  /** The fork server, exposed for tests (crash simulation) and benchmarks (restart count). */
  get server(): ForkServer {
    return this.forkServer;
  }

  private get dropUid(): boolean {
    return this.opts.probe.tools.isRoot && this.opts.probe.tools.setpriv !== null;
  }

  /**
   * "private" when bwrap runs on a root host: the fork server keeps the capabilities it needs to give
   * each job its own mount namespace (private /tmp, /var/tmp, /dev/shm) and its own uid, and drops
   * them in the job before any job code runs. Otherwise "shared" (see fork-server-program.ts).
   */
  get forkServerMode(): "private" | "shared" {
    return this.isolation === "bwrap" && this.opts.probe.tools.isRoot ? "private" : "shared";
  }

  private forkServerCommand(): LaunchCommand {
    const root = this.isolation === "bwrap" ? "/tmp" : this.serverRoot!;
    const mode = this.forkServerMode;
    return buildLaunchCommand({
      level: this.isolation,
      tools: this.opts.probe.tools,
      limits: null,
      asRoot: false,
      program: forkServerProgram(this.opts.probe.tools, this.prep, root, mode),
      cwd: root,
      mounts: [],
      ...this.view(),
      ...(mode === "private" ? { keepCaps: FORK_SERVER_CAPS } : {}),
    });
  }

  private get hidden(): readonly string[] {
    return this.opts.hidden ?? [];
  }

  /** What of the host a bwrap launch shows (read per launch: hidden paths may appear during a run). */
  private view(): { view: HostViewInput } | Record<string, never> {
    if (this.isolation !== "bwrap") return {};
    const tools = this.opts.probe.tools;
    return { view: readHostView(runtimeTrees(tools), this.hidden) };
  }

  private usesForkServer(req: ExecRequest): boolean {
    return (
      req.language === "python" &&
      !req.workDir &&
      !req.overlays?.length &&
      !req.binds?.length &&
      !req.asRoot &&
      Object.keys(req.files ?? {}).every(safeRelative)
    );
  }

  async exec(req: ExecRequest, signal?: AbortSignal): Promise<ExecOutcome> {
    if (this.closed) throw new SandboxError("E_SANDBOX_CLOSED", "exec() after close()");
    return runCancellable(
      this.limiter,
      this.running,
      signal,
      () => emptyOutcome({ isCanceled: true }),
      (s) => (this.usesForkServer(req) ? this.execForked(req, s) : this.execAlone(req, s)),
    );
  }

  /**
   * Fixed once the fork server was first started (its restarts start the same program): modules given
   * later are not loaded, and jobs carry their code themselves ({@link hasPythonModule} false).
   */
  private prep: SandboxWarmUp = {};
  private prepFixed = false;

  hasPythonModule(name: string): boolean {
    return this.prepFixed && Object.hasOwn(this.prep.pythonModules ?? {}, name);
  }

  warmUp(prep?: SandboxWarmUp): void {
    if (this.closed) return;
    if (prep && !this.prepFixed) this.prep = prep;
    this.prepFixed = true;
    if (this.isolation === "bwrap") this.forkServer.warm();
    else
      void this.makeServerRoot().then(
        () => {
          if (!this.closed) this.forkServer.warm();
        },
        () => {
          /* retried by the first job */
        },
      );
  }

  async execMany(reqs: ExecRequest[], signal?: AbortSignal): Promise<ExecOutcome[]> {
    return Promise.all(reqs.map((r) => this.exec(r, signal)));
  }

  /** Outside bwrap the fork server works in a host temp dir, made once (concurrent first jobs share it). */
  private serverRootMade: Promise<void> | null = null;

  private makeServerRoot(): Promise<void> {
    this.serverRootMade ??= (async () => {
      const root = await mkdtemp(join(tmpdir(), "a2a-forksrv-"));
      this.serverRoot = root;
      if (this.dropUid) await chown(root, SANDBOX_UID, SANDBOX_UID);
      await chmod(root, 0o700);
    })();
    return this.serverRootMade;
  }

  private async execForked(req: ExecRequest, signal: AbortSignal): Promise<ExecOutcome> {
    this.prepFixed = true;
    if (this.isolation !== "bwrap") {
      try {
        await this.makeServerRoot();
      } catch (e) {
        this.serverRootMade = null; // the next job tries again
        return emptyOutcome({ infraError: `sandbox setup: ${(e as Error).message}` });
      }
    }
    const home = this.isolation === "bwrap" ? "/tmp" : this.serverRoot!;
    return this.forkServer.run(
      {
        code: req.code,
        timeoutMs: req.timeoutMs,
        env: baseEnv(this.opts.probe.tools, home, req.env),
        ...(req.stdin !== undefined ? { stdin: req.stdin } : {}),
        ...(req.files ? { files: req.files } : {}),
        limits: this.opts.limits,
        tmpfsBytes: TMPFS_BYTES,
        tmpfsInodes: TMPFS_INODES,
      },
      signal,
    );
  }

  /** Why this sandbox cannot run `req` alone (a capability it lacks here: overlays, binds, asRoot), or null. */
  private unsupported(req: ExecRequest): string | null {
    return refusedRequest(this, req);
  }

  /** Write the program into `staging/program` and the request's files into the job's cwd; an error message for an unsafe path. */
  private async stageJob(req: ExecRequest, staging: string): Promise<StagedJob | string> {
    const progDir = join(staging, "program");
    const jobDir = join(staging, "job");
    await mkdir(progDir);
    await mkdir(jobDir);
    const progFile = `main.${EXT[req.language]}`;
    await writeFile(join(progDir, progFile), req.code);
    const hostCwd = req.workDir ?? jobDir;
    for (const [rel, content] of Object.entries(req.files ?? {})) {
      if (!safeRelative(rel)) return `files: path must stay inside the job dir: ${rel}`;
      await mkdir(dirname(join(hostCwd, rel)), { recursive: true });
      await writeFile(join(hostCwd, rel), content);
    }
    return { staging, progDir, jobDir, progFile, hostCwd };
  }

  /** Lend the trees the job writes to the sandbox uid (when dropping root), each restore pushed as soon as it is owed. */
  private async lendTrees(req: ExecRequest, staging: string, restores: Array<() => Promise<void>>): Promise<void> {
    if (!this.dropUid || req.asRoot) return;
    restores.push(await lendTree(staging, SANDBOX_UID, SANDBOX_UID));
    if (req.workDir) restores.push(await lendTree(req.workDir, SANDBOX_UID, SANDBOX_UID));
    for (const b of req.binds ?? []) if (b.writable) restores.push(await lendTree(b.host, SANDBOX_UID, SANDBOX_UID));
  }

  /** The launch command of a staged job: mounts, cwd and interpreter. */
  private launchFor(
    req: ExecRequest,
    job: StagedJob,
    overlays: PreparedOverlays | null,
  ): { command: LaunchCommand; cwd: string } {
    const tools = this.opts.probe.tools;
    const mounts: MountSpec[] = [...(overlays?.mounts ?? []), ...(req.binds ?? [])];
    let cwd = job.hostCwd;
    let programPath = join(job.progDir, job.progFile);
    if (this.isolation === "bwrap") {
      mounts.push({ host: job.progDir, target: PROGRAM_DIR, writable: false });
      if (req.workDir) mounts.push({ host: req.workDir, target: req.workDir, writable: true });
      else mounts.push({ host: job.jobDir, target: JOB_DIR, writable: true });
      cwd = req.workDir ?? JOB_DIR;
      programPath = `${PROGRAM_DIR}/${job.progFile}`;
    }
    const interpreter = { python: [tools.python, "-B"], bash: ["/bin/bash"], node: [tools.node] }[req.language];
    const command = buildLaunchCommand({
      level: this.isolation,
      tools,
      limits: this.opts.limits,
      asRoot: req.asRoot ?? false,
      program: [...interpreter, programPath],
      cwd,
      mounts,
      ...this.view(),
      ...(overlays ? { unmasked: overlays.shadowed } : {}),
    });
    return { command: overlays ? overlays.wrap(command) : command, cwd };
  }

  /** Run a staged job and judge what came back. */
  private async runStaged(
    req: ExecRequest,
    job: StagedJob,
    overlays: PreparedOverlays | null,
    signal: AbortSignal,
  ): Promise<ExecOutcome> {
    const { command, cwd } = this.launchFor(req, job, overlays);
    const env = baseEnv(this.opts.probe.tools, req.asRoot ? "/root" : cwd, req.env);
    if (this.isolation !== "bwrap") env["TMPDIR"] = job.jobDir;
    const outcome = await runProcess({
      command,
      env,
      timeoutMs: req.timeoutMs,
      maxOutputBytes: this.opts.limits.maxOutputBytes,
      signal,
      ...(req.stdin !== undefined ? { stdin: req.stdin } : {}),
    });
    // bwrap reports its own setup failures (e.g. a bind target it cannot create on the
    // read-only root) as "bwrap: ..." with exit 1 before the program starts.
    const setup = /^bwrap: .*/.exec(outcome.stderrTail);
    if (this.isolation === "bwrap" && outcome.exitCode === 1 && setup && outcome.stdoutTail === "")
      return { ...outcome, infraError: setup[0] };
    return outcome;
  }

  /** One sandbox for this exec: stage, lend, mount, run, then restore and clean up whatever happened. */
  private async execAlone(req: ExecRequest, signal: AbortSignal): Promise<ExecOutcome> {
    const restores: Array<() => Promise<void>> = [];
    let overlays: PreparedOverlays | null = null;
    const staging = await mkdtemp(join(tmpdir(), "a2a-sbx-"));
    try {
      const refused = this.unsupported(req);
      if (refused !== null) return emptyOutcome({ infraError: refused });
      const job = await this.stageJob(req, staging);
      if (typeof job === "string") return emptyOutcome({ infraError: job });
      await this.lendTrees(req, staging, restores);
      await chmod(staging, 0o700);
      const tools = this.opts.probe.tools;
      if (req.overlays?.length)
        overlays = await prepareOverlays(tools.unshare!, req.overlays, readHostView(runtimeTrees(tools), this.hidden));
      return await this.runStaged(req, job, overlays, signal);
    } catch (e) {
      return emptyOutcome({ infraError: `sandbox setup: ${(e as Error).message}` });
    } finally {
      for (const r of restores.reverse())
        await r().catch((e: Error) => this.opts.logger.warn({ err: e.message }, "restoring owner failed"));
      await overlays?.cleanup();
      await removeTree(staging).catch((e: Error) =>
        this.opts.logger.error(
          { code: (e as { code?: string }).code, err: e.message },
          "removing a job's staging tree failed",
        ),
      );
    }
  }

  /**
   * A per-item environment (local-environment.ts): only where this sandbox declares `environments`
   * (bwrap isolation); anywhere else it is refused, never opened with weaker isolation.
   */
  async openEnvironment(spec: EnvironmentSpec, signal?: AbortSignal): Promise<Environment> {
    if (this.closed) throw new SandboxError("E_SANDBOX_CLOSED", "openEnvironment() after close()");
    refuseEngineOnly(spec, "local");
    if (!this.capabilities.has("environments"))
      throw new SandboxCapabilityError(
        "local",
        "environments",
        "openEnvironment",
        `environments need bwrap isolation (here: ${this.isolation}${this.isolation === "bwrap" ? ", as root without setpriv" : ""}): install bubblewrap (and util-linux's setpriv) with \`apt-get install -y bubblewrap util-linux\``,
      );
    const e = await openLocalEnvironment(
      spec,
      { tools: this.opts.probe.tools, hidden: this.hidden, limits: this.opts.limits, logger: this.opts.logger },
      { ...(signal ? { signal } : {}), onClose: (closed) => this.environments.delete(closed) },
    );
    if (this.closed) {
      await e.close().catch(() => undefined);
      throw new SandboxError("E_SANDBOX_CLOSED", "the sandbox was closed while the environment started");
    }
    this.environments.add(e);
    return e;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const ac of this.running) ac.abort();
    const open = [...this.environments];
    this.environments.clear();
    await Promise.all(open.map((e) => e.close().catch(() => undefined)));
    await this.forkServer.close();
    if (this.serverRoot)
      await removeTree(this.serverRoot).catch((e: Error) =>
        this.opts.logger.error(
          { code: (e as { code?: string }).code, err: e.message },
          "removing the fork server's tree failed",
        ),
      );
  }
}
