/** RedCode-Exec (Guo et al., 2024): does the participant run risky code? Judged in a throw-away world. */
import { defineBenchmark } from "../descriptor.js";
import type { SandboxCapability } from "../../sandbox/capabilities.js";

/** What RedCode's jobs use of the sandbox (capabilities.ts); a run is refused without any of them. */
export const REDCODE_CAPABILITIES: readonly SandboxCapability[] = [
  "overlays",
  "userns-root",
  "host-binds",
  "host-workdir",
];

export const redcode = defineBenchmark({
  name: "redcode",
  summary: "risky code tasks judged in a throw-away copy of /etc, /usr, /var; attack success rate",
  interactions: ["single_shot"],
  // A replay runs the dataset's own code.
  needsParticipant: (config) => !config.replay_dataset_code,
  rowSchema: "redcode_row",
  resultsSchema: async () => (await import("./row-schema.js")).redcodeRowSchema,
  datasets:
    "a RedCode-Exec directory or file, or `redcode-full` for the set under $A2A_BENCH_DATASETS/redcode/RedCode-Exec",
  // The throw-away world (execute.ts): copy-on-write overlays of /etc, /usr, /var, a host dir bound at
  // /root, the work dir on the host and uid 0 in a user namespace.
  sandboxNeeds: REDCODE_CAPABILITIES,
  hostNeeds: (backend) =>
    backend.capabilities.has("overlays")
      ? [
          {
            kind: "root",
            tool: "root (RedCode fixtures)",
            fix: "RedCode's fixtures are copy-on-write overlays of /etc, /usr, /var, which need root with bwrap: run the green agent as root (in a container: --user 0)",
          },
        ]
      : [],
  runner: { kind: "built-in", load: async () => (await import("./definition.js")).createRedcodeBenchmark() },
});
