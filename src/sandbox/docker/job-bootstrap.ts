/**
 * The program a job starts with inside the container (python3, run as the
 * job's own uid). It reads the job from stdin as JSON — program text, files,
 * stdin, environment, limits — so nothing of the job is on any command line;
 * writes them to fresh 0700 directories under /tmp; runs the program with
 * the per-program rlimits of the local sandbox (address space, processes of
 * its uid, CPU seconds); then kills every process left under its uid (a job
 * cannot leave a helper behind for the next one) and prints one status line
 * to stderr, prefixed with the job's random nonce.
 */

/** What the host sends on the bootstrap's stdin. */
export interface JobPayload {
  nonce: string;
  /** argv of the interpreter; the program path is appended. */
  interpreter: string[];
  ext: string;
  code: string;
  files: Record<string, string>;
  stdin: string;
  env: Record<string, string>;
  limits: { memoryBytes: number; maxProcesses: number; cpuSeconds: number };
}

/** The status line's JSON. */
export interface JobStatus {
  exitCode: number | null;
  signal: string | null;
  /** Setup failure inside the container before the program ran. */
  setupError?: string;
}

export const JOB_BOOTSTRAP = String.raw`
import json, os, resource, shutil, signal, sys, tempfile
p = json.loads(sys.stdin.buffer.read())
nonce = p["nonce"]
def status(d):
    sys.stderr.write("\n" + nonce + json.dumps(d) + "\n")
    sys.stderr.flush()
try:
    os.umask(0o077)
    work = tempfile.mkdtemp(prefix="job-", dir="/tmp")
    progdir = tempfile.mkdtemp(prefix="prog-", dir="/tmp")
    for rel, content in p["files"].items():
        path = os.path.normpath(os.path.join(work, rel))
        if os.path.isabs(rel) or not path.startswith(work + os.sep):
            raise ValueError("files: path must stay inside the job dir: " + rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(content)
    prog = os.path.join(progdir, "main." + p["ext"])
    with open(prog, "w") as f:
        f.write(p["code"])
    stdin_path = os.path.join(progdir, "stdin")
    with open(stdin_path, "w") as f:
        f.write(p["stdin"])
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
           "HOME": work, "TMPDIR": work}
    env.update(p["env"])
    lim = p["limits"]
    if not os.access(p["interpreter"][0], os.X_OK):
        raise FileNotFoundError("the image has no " + p["interpreter"][0] + " (use an image with this language)")
except Exception as e:
    status({"exitCode": None, "signal": None, "setupError": repr(e)})
    sys.exit(0)
pid = os.fork()
if pid == 0:
    try:
        os.chdir(work)
        fd = os.open(stdin_path, os.O_RDONLY)
        os.dup2(fd, 0)
        resource.setrlimit(resource.RLIMIT_AS, (lim["memoryBytes"], lim["memoryBytes"]))
        resource.setrlimit(resource.RLIMIT_NPROC, (lim["maxProcesses"], lim["maxProcesses"]))
        resource.setrlimit(resource.RLIMIT_CPU, (lim["cpuSeconds"], lim["cpuSeconds"]))
        os.execve(p["interpreter"][0], p["interpreter"] + [prog], env)
    except BaseException as e:
        os.write(2, ("sandbox: cannot start the program: %r\n" % (e,)).encode())
        os._exit(127)
_, st = os.waitpid(pid, 0)
try:
    os.kill(-1, signal.SIGKILL)
except ProcessLookupError:
    pass
shutil.rmtree(work, ignore_errors=True)
shutil.rmtree(progdir, ignore_errors=True)
if os.WIFSIGNALED(st):
    n = os.WTERMSIG(st)
    try:
        name = signal.Signals(n).name
    except ValueError:
        name = str(n)
    status({"exitCode": None, "signal": name})
else:
    status({"exitCode": os.WEXITSTATUS(st), "signal": None})
`;

/** Split the status line off a job's stderr: the last line starting with the nonce. */
export function splitStatus(stderr: string, nonce: string): { stderr: string; status: JobStatus | null } {
  const at = stderr.lastIndexOf("\n" + nonce);
  if (at < 0) return { stderr, status: null };
  const line = stderr.slice(at + 1 + nonce.length).split("\n")[0]!;
  try {
    return { stderr: stderr.slice(0, at), status: JSON.parse(line) as JobStatus };
  } catch {
    return { stderr, status: null };
  }
}
