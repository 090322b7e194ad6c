import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { readTask, sizeToMb, taskDirsOf, TASK_DEFAULTS } from "../../../src/benchmarks/terminal/task.js";
import { loadTasks, SAMPLE_TASKS_DIR } from "../../../src/benchmarks/terminal/dataset.js";

const UNSUPPORTED = join(process.cwd(), "tests", "fixtures", "terminal", "unsupported");

describe("terminal task directories", () => {
  it("reads the shipped sample: timeouts, resources, verifier env, Dockerfile, solution", async () => {
    const tasks = await loadTasks("sample");
    expect(tasks.map((t) => t.id)).toEqual(["built-tool", "reward-json", "verifier-timeout", "write-file"]);
    const json = tasks.find((t) => t.id === "reward-json")!;
    expect(json).toMatchObject({
      agentTimeoutSec: 300,
      verifierTimeoutSec: 120,
      verifierEnv: { EXPECTED_TOTAL: "4242" },
      memoryMb: 1024,
      storageMb: 2048,
      allowInternet: false,
      hasSolution: true,
      unsupported: [],
      environmentDir: join(SAMPLE_TASKS_DIR, "reward-json", "environment"),
    });
    expect(tasks.find((t) => t.id === "built-tool")).toMatchObject({ cpus: 2, memoryMb: 512, storageMb: 1024 });
    expect(tasks.find((t) => t.id === "verifier-timeout")).toMatchObject({
      verifierTimeoutSec: 20,
      agentTimeoutSec: 120,
    });
  });

  it("refuses, per task and by name, a multi-container compose environment and GPUs", async () => {
    const tasks = await loadTasks(UNSUPPORTED);
    expect(tasks.map((t) => [t.id, t.unsupported])).toEqual([
      ["compose-task", [expect.stringMatching(/multi-container docker-compose\.yaml/)]],
      ["gpu-task", [expect.stringMatching(/asks for GPUs \(environment\.gpus = 1\)/)]],
    ]);
  });

  it("takes Harbor's defaults where task.toml is silent (internet allowed by default)", async () => {
    const t = await readTask(join(UNSUPPORTED, "compose-task"));
    expect(t).toMatchObject({
      agentTimeoutSec: TASK_DEFAULTS.agentTimeoutSec,
      verifierTimeoutSec: 30,
      cpus: 1,
      memoryMb: TASK_DEFAULTS.memoryMb,
      allowInternet: true,
    });
  });

  it("sizes as Harbor writes them", () => {
    expect(sizeToMb("4G", "x")).toBe(4096);
    expect(sizeToMb("512M", "x")).toBe(512);
    expect(sizeToMb("10Gi", "x")).toBe(10240);
    expect(() => sizeToMb("lots", "environment.memory")).toThrow(/environment\.memory must be a size/);
  });

  it("a directory without tasks is refused, naming it", async () => {
    await expect(taskDirsOf(join(UNSUPPORTED, "gpu-task", "tests"))).rejects.toThrow(/holds no task directory/);
  });
});
