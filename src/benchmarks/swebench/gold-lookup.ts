/**
 * Reference patches for the purple `gold` mode: look an instance up in the
 * given instance files (JSON/JSONL), then in the embedded sample set. The
 * A2A request never carries the patch or the dataset path (that would hand
 * the answer to every participant), so the purple agent is told where the
 * instances are (`--dataset`), or it finds the sample set itself.
 */
import { BenchError } from "../../util/errors.js";
import { loadInstanceFile, type SwebenchInstance } from "./instance.js";
import { ensureSampleDataset } from "./sample-dataset.js";

/** The gold `patch` of `instanceId`; throws E_GOLD naming what was tried. */
export async function goldPatchFor(instanceId: string, datasets: readonly string[]): Promise<string> {
  const tried: string[] = [];
  for (const ds of [...new Set([...datasets, "sample"])]) {
    try {
      const instances = ds === "sample" ? (await ensureSampleDataset()).instances : await loadInstanceFile(ds);
      const patch = instances.find((i) => i.instance_id === instanceId)?.patch;
      if (patch) return patch;
      tried.push(`${ds} (no ${instanceId})`);
    } catch (err) {
      tried.push(`${ds} (${(err as Error).message})`);
    }
  }
  throw new BenchError("E_GOLD", `no gold patch for ${instanceId}; tried ${tried.join(", ")}`);
}

/** Every instance of the given files that load as SWE-bench instances, then of the sample set (others skipped). */
export async function knownSwebenchInstances(datasets: readonly string[]): Promise<SwebenchInstance[]> {
  const out: SwebenchInstance[] = [];
  for (const ds of new Set([...datasets, "sample"])) {
    try {
      out.push(...(ds === "sample" ? (await ensureSampleDataset()).instances : await loadInstanceFile(ds)));
    } catch {
      // not a SWE-bench instance file (or unreadable): the other benchmarks' lookups may know it
    }
  }
  return out;
}
