/**
 * The cost of a page fault on this machine, measured in the bench's own run: the figure OpenAI's HumanEval harness
 * is most sensitive to (it forks a Manager and a Process per completion, and every first write after a fork copies
 * a page). A python3 child (no site) maps 64 MiB of anonymous memory and times the first write to each page (a
 * zero-fill fault), then forks and times the child's first write to each page of that region (a copy-on-write
 * fault); each figure divides the time by the faults the kernel counted (ru_minflt).
 */
import { run } from "./proc.mjs";

const PROGRAM = String.raw`
import mmap, os, resource, time, json
N = 64 << 20
def touch(m):
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    t0 = time.perf_counter()
    for i in range(0, N, 4096): m[i] = 1
    dt = time.perf_counter() - t0
    return dt, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
m = mmap.mmap(-1, N, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
# The loop itself without faults: the same writes to pages already present.
touch(m)
base_dt, _ = touch(m)
r, w = os.pipe()
dt, faults = 0.0, 0
m.close()
m = mmap.mmap(-1, N, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
dt, faults = touch(m)
pid = os.fork()
if pid == 0:
    os.close(r)
    cdt, cfaults = touch(m)
    os.write(w, json.dumps([cdt, cfaults]).encode()); os._exit(0)
os.close(w)
cdt, cfaults = json.loads(os.read(r, 1000)); os.waitpid(pid, 0)
print(json.dumps({"zeroUs": (dt - base_dt) / max(faults, 1) * 1e6, "zeroFaults": faults,
                  "cowUs": (cdt - base_dt) / max(cfaults, 1) * 1e6, "cowFaults": cfaults}))
`;

/** Median µs per zero-fill and per copy-on-write fault over `runs` runs of the probe. */
export async function pageFaultCost(runs = 5) {
  const zero = [];
  const cow = [];
  for (let i = 0; i < runs; i++) {
    const r = await run("/usr/bin/python3", ["-I", "-S", "-c", PROGRAM]);
    if (r.code !== 0) throw new Error(`page-fault probe: exit ${r.code}: ${r.stderr.slice(-300)}`);
    const o = JSON.parse(r.stdout);
    zero.push(o.zeroUs);
    cow.push(o.cowUs);
  }
  const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  return { zeroUs: med(zero), cowUs: med(cow), runs };
}
