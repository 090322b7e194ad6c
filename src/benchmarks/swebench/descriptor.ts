/** SWE-bench (Jimenez et al., 2024): patch a repository so its failing tests pass; graded as the official harness. */
import { defineBenchmark } from "../descriptor.js";

export const swebench = defineBenchmark({
  name: "swebench",
  summary: "patch a python repository so the issue's tests pass; resolved rate",
  interactions: ["single_shot", "interactive"],
  // A predictions file replaces the participant.
  needsParticipant: (config) => !config.predictions,
  rowSchema: "swebench_row",
  resultsSchema: async () => (await import("./row-schema.js")).swebenchRowSchema,
  datasets: "a .json/.jsonl file of instances",
  sandboxNeeds: [],
  // The test run's limit: the official harness's `--timeout` default. Its probes get at least as long
  // (local-inventory.ts); a test run past it is TIMEOUT and unresolved, as officially.
  defaults: { per_task_timeout_seconds: 1800 },
  hostNeeds: (backend) => [
    // Without environments of each instance's image the tests run in a host work dir under this host's python3
    // (the local backend); a backend with images runs them in the instance's image.
    ...(!backend.capabilities.has("images") && backend.capabilities.has("host-workdir")
      ? [
          {
            kind: "python-module" as const,
            module: "pytest",
            fix: (python: string) =>
              `install pytest for ${python} (\`${python} -m pip install pytest\` or \`apt-get install -y python3-pytest\`)`,
          },
        ]
      : []),
    // The checkout (worktree or clone) is made on the host with every backend.
    { kind: "program" as const, tool: "git", fix: "install git (`apt-get install -y git`)" },
  ],
  // The instance's gold `patch`, from purple's --dataset instance files or the embedded sample set.
  gold: async () => {
    const { goldPatchFor } = await import("./gold-lookup.js");
    return async (task, ctx) => ({
      text: "```diff\n" + (await goldPatchFor(String(task["instance_id"]), ctx.datasets)) + "```\n",
    });
  },
  // Interactive: `git apply` the gold patch, or send it as the final answer to a green that takes it there.
  goldEpisode: async () => {
    const { goldPatchFor } = await import("./gold-lookup.js");
    return async (task, ctx) => {
      const patch = await goldPatchFor(task.id, ctx.datasets);
      if (task.finalPatch) return { what: "the gold patch", steps: [], output: patch };
      return { what: "git apply of the gold patch", steps: [{ kind: "apply_patch", patch }] };
    };
  },
  runner: { kind: "built-in", load: async () => (await import("./definition.js")).createSwebenchBenchmark() },
});
