import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { attemptNetwork, networkRefusal } from "../../../src/benchmarks/terminal/attempt.js";
import type { RunOptions } from "../../../src/runner/options.js";
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

  describe("the network a task asks for", () => {
    async function taskWith(environment: string) {
      const dir = await mkdtemp(join(tmpdir(), "a2a-terminal-net-"));
      const task = join(dir, "net-task");
      await mkdir(join(task, "tests"), { recursive: true });
      await writeFile(join(task, "task.toml"), `[environment]\n${environment}\n`);
      await writeFile(join(task, "instruction.md"), "x\n");
      await writeFile(join(task, "tests", "test.sh"), "true\n");
      try {
        return await readTask(task);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }

    it("reads allow_internet, and Harbor's network_mode before it; refuses a host allowlist by name", async () => {
      expect((await taskWith("allow_internet = false")).allowInternet).toBe(false);
      expect((await taskWith("allow_internet = true")).allowInternet).toBe(true);
      expect((await taskWith("cpus = 1")).allowInternet).toBe(true);
      expect((await taskWith('network_mode = "no-network"\nallow_internet = true')).allowInternet).toBe(false);
      expect((await taskWith('network_mode = "public"\nallow_internet = false')).allowInternet).toBe(true);
      expect((await taskWith('network_mode = "allowlist"\nallowed_hosts = ["pypi.org"]')).unsupported).toContainEqual(
        expect.stringMatching(/host allowlist \(environment\.network_mode = allowlist\), which is not enforced/),
      );
      await expect(taskWith('network_mode = "open"')).rejects.toThrow(/network_mode must be public, no-network/);
      await expect(taskWith('allow_internet = "yes"')).rejects.toThrow(/allow_internet must be true or false/);
    });

    it("a task asking for the network is refused unless the operator allows it, then joins terminal_network", async () => {
      const asks = await taskWith("allow_internet = true");
      const offline = await taskWith("allow_internet = false");
      const denied = { allow_network: false, terminal_network: "bridge" } as RunOptions;
      const allowed = { allow_network: true, terminal_network: "tasks-net" } as RunOptions;
      expect(networkRefusal(asks, denied)).toMatch(/asks for the network .* did not allow it \(allow_network: false\)/);
      expect(attemptNetwork(asks, denied)).toBeUndefined();
      expect(networkRefusal(asks, allowed)).toBeNull();
      expect(attemptNetwork(asks, allowed)).toBe("tasks-net");
      // A task that says it needs none never has one, whatever the operator allows.
      expect(networkRefusal(offline, denied)).toBeNull();
      expect(attemptNetwork(offline, allowed)).toBeUndefined();
    });
  });
});
