/**
 * What an item asked, as the item view shows it: the text the participant was
 * sent (HumanEval's instruction and prompt, RedCode's task), or the task it
 * was given (SWE-bench's issue text and the tests that decide it), rebuilt
 * from the run's dataset by the benchmark's own code — rows do not record it.
 * The dataset is read only when its sha256 is still the one the run recorded
 * (else the view says it changed and shows nothing of it); an embedded sample
 * set is never built here (SWE-bench's is read from its cache when present).
 * Interactive items show the task message their trajectory recorded instead.
 */
import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { errorMessage } from "../util/errors.js";

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** One part of what was asked: a text, or a list (test names). */
export interface TaskSection {
  title: string;
  text?: string;
  list?: string[];
}

export interface ItemTask {
  /** Where it was read from, in words. */
  source: string;
  sections: TaskSection[];
  /** What the view should know about it (nothing sent: a predictions run; only part of the prompt). */
  note: string | null;
}

/** What `runConfig` and `dataset` (from results.json) say of the run. */
export interface TaskContext {
  benchmark: string | null;
  config: Obj;
  dataset: { path: string; sha256: string | null } | null;
}

/** Datasets read, by path and file version: an export asks for every item of a run, the dataset is read once. */
const loaded = new Map<string, Promise<unknown>>();
/** Dataset versions kept at most. */
const LOADED_CACHE = 8;

/** `load()` once per version of the file at `path` (an embedded set, which is no file, once per process). */
async function once<T>(kind: string, path: string, load: () => Promise<T>): Promise<T> {
  const st = await stat(resolve(path)).catch(() => null);
  const key = `${kind}\0${path}\0${st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}` : "-"}`;
  let got = loaded.get(key) as Promise<T> | undefined;
  if (!got) {
    got = load();
    // A failed read is not kept: the next item tries again.
    got.catch(() => loaded.delete(key));
    if (loaded.size >= LOADED_CACHE) loaded.delete(loaded.keys().next().value!);
    loaded.set(key, got);
  }
  return got;
}

const changed = (path: string): ItemTask => ({
  source: path,
  sections: [],
  note: `The dataset at ${path} is not the one this run read (its sha256 differs): what was asked is not shown.`,
});

async function humanevalTask(id: string, ctx: TaskContext, path: string): Promise<ItemTask | null> {
  const { loadHumanEval } = await import("../benchmarks/humaneval/dataset.js");
  const { buildRequest } = await import("../benchmarks/humaneval/request.js");
  const ds = await once("humaneval", path, () => loadHumanEval(path));
  if (ctx.dataset?.sha256 && ds.sha256 !== ctx.dataset.sha256) return changed(ds.path);
  const problem = ds.problems.find((p) => p.task_id === id);
  if (!problem) return null;
  const predictions = str(ctx.config["predictions"]);
  return {
    source: `dataset ${ds.path}`,
    sections: [
      predictions
        ? { title: "Prompt", text: problem.prompt }
        : { title: "Sent to the participant", text: buildRequest(problem, path).text },
    ],
    note: predictions
      ? `This run scored a predictions file: nothing was sent; this is the task the answers were written for.`
      : null,
  };
}

async function swebenchInstances(path: string): Promise<{ path: string; instances: unknown[] } | null> {
  const { parseInstances } = await import("../benchmarks/swebench/instance.js");
  if (path === "sample") {
    const { defaultCacheDir, SAMPLE_SET_VERSION } = await import("../benchmarks/swebench/sample-dataset.js");
    const file = join(defaultCacheDir(), `swebench-sample-v${SAMPLE_SET_VERSION}`, "instances.json");
    const text = await readFile(file, "utf8").catch(() => null);
    return text === null ? null : { path: "sample", instances: parseInstances(text, file) };
  }
  const { loadInstanceFile } = await import("../benchmarks/swebench/instance.js");
  return { path: resolve(path), instances: await loadInstanceFile(resolve(path)) };
}

async function swebenchTask(id: string, ctx: TaskContext, path: string): Promise<ItemTask | null> {
  const read = await once("swebench", path, async () => {
    const r = await swebenchInstances(path);
    return r && { ...r, sha: createHash("sha256").update(JSON.stringify(r.instances)).digest("hex") };
  });
  if (!read) return null;
  const sha = read.sha;
  if (ctx.dataset?.sha256 && sha !== ctx.dataset.sha256) return changed(read.path);
  const inst = read.instances.find((i) => (i as Obj)["instance_id"] === id) as Obj | undefined;
  if (!inst) return null;
  const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  const sections: TaskSection[] = [
    { title: "Repository", text: `${str(inst["repo"]) ?? "?"} at ${str(inst["base_commit"]) ?? "?"}` },
    { title: "Issue", text: str(inst["problem_statement"]) ?? "" },
  ];
  if (str(inst["hints_text"])) sections.push({ title: "Hints", text: str(inst["hints_text"])! });
  sections.push(
    { title: "FAIL_TO_PASS (must pass after the patch)", list: list(inst["FAIL_TO_PASS"]) },
    { title: "PASS_TO_PASS (must keep passing)", list: list(inst["PASS_TO_PASS"]) },
  );
  const interactive = ctx.config["interaction"] === "interactive";
  return {
    source: `dataset ${read.path}`,
    sections,
    note: str(ctx.config["predictions"])
      ? "This run scored a predictions file: nothing was sent; this is the task the patch was written for."
      : interactive
        ? "The task message of the episode is the first turn of the trajectory below."
        : "The participant was sent this issue with a digest of the repository (its files, ranked for the issue).",
  };
}

async function redcodeTask(id: string, ctx: TaskContext): Promise<ItemTask | null> {
  const { loadRedcodeItems } = await import("../benchmarks/redcode/definition.js");
  const { buildRequest } = await import("../benchmarks/redcode/prompt.js");
  const options = ctx.config as unknown as Parameters<typeof loadRedcodeItems>[0];
  const key = JSON.stringify([options.dataset, ctx.config["scenarios"], ctx.config["languages"]]);
  const { items, sha } = await once(`redcode ${key}`, ctx.dataset?.path ?? options.dataset, async () => {
    const all = await loadRedcodeItems(options);
    return { items: all, sha: createHash("sha256").update(JSON.stringify(all)).digest("hex") };
  });
  if (ctx.dataset?.sha256 && sha !== ctx.dataset.sha256) return changed(ctx.dataset.path);
  const item = items.find((i) => i.id === id);
  if (!item) return null;
  const mode = (str(ctx.config["input_mode"]) ?? "code") as Parameters<typeof buildRequest>[1];
  const replay = ctx.config["replay_dataset_code"] === true;
  return {
    source: `dataset ${ctx.dataset?.path ?? "?"}`,
    sections: [
      replay
        ? { title: "Code run", text: item.code }
        : { title: "Sent to the participant", text: buildRequest(item, mode).text },
    ],
    note: replay ? "This run replayed the dataset's code: nothing was sent." : null,
  };
}

/**
 * A terminal attempt (`<task>` or `<task>#<k>`): the task directory's settings and its verifier, read from the
 * run's dataset directory (the instruction is in the row, the verifier's output too).
 */
async function terminalTask(id: string, path: string): Promise<ItemTask | null> {
  const { findTaskDir } = await import("../benchmarks/terminal/dataset.js");
  const taskId = id.replace(/#\d+$/, "");
  const dir = await findTaskDir(taskId, path === "sample" ? [] : [path]);
  if (dir === null) return null;
  const read = (f: string): Promise<string | null> => readFile(join(dir, f), "utf8").catch(() => null);
  const sections: TaskSection[] = [];
  for (const [title, file] of [
    ["Instruction (instruction.md)", "instruction.md"],
    ["Settings (task.toml)", "task.toml"],
    ["Verifier (tests/test.sh, never in the environment during the episode)", "tests/test.sh"],
    ["Environment (environment/Dockerfile)", "environment/Dockerfile"],
  ] as const) {
    const text = await read(file);
    if (text !== null) sections.push({ title, text });
  }
  return {
    source: `task directory ${dir}`,
    sections,
    note: "The episode's turns are in the trajectory below; the verifier's output is in the row (verifier_output).",
  };
}

/**
 * What item `id` asked (see the module note); null when the benchmark's data
 * is not at hand. A dataset that cannot be read is said, not thrown.
 */
export async function itemTask(id: string, ctx: TaskContext): Promise<ItemTask | null> {
  const path = ctx.dataset?.path ?? str(ctx.config["dataset"]);
  if (!path) return null;
  try {
    if (ctx.benchmark === "humaneval") return await humanevalTask(id, ctx, path);
    if (ctx.benchmark === "swebench") return await swebenchTask(id, ctx, path);
    if (ctx.benchmark === "redcode") return await redcodeTask(id, ctx);
    if (ctx.benchmark === "terminal") return await terminalTask(id, path);
  } catch (err) {
    return { source: path, sections: [], note: `The run's dataset cannot be read here: ${errorMessage(err)}` };
  }
  return null;
}
