/**
 * The assessment request's `config`: a typed view of
 * `schemas/assessment_request.schema.json`, the single source of truth for the
 * green agent's `config`, the runner's options and a scenario's `[config]`.
 * Keys stay in the schema's snake_case. Defaults are applied once, by
 * {@link resolveConfig} (resolve.ts).
 */
import type { SandboxBackendName } from "../sandbox/registry.js";

/**
 * How the benchmark talks to the participant (the request config's
 * `interaction`). `single_shot`: one question per answer, the reply is the
 * answer (no tool calls, no follow-up turns). `interactive`: the participant
 * acts in the item's environment one A2A round trip per command
 * (`terminal-bench-shell-v1`, src/interactive/), the environment is graded.
 */
export const INTERACTIONS = ["single_shot", "interactive"] as const;
export type Interaction = (typeof INTERACTIONS)[number];

export interface AssessmentConfig {
  /** A registered benchmark's name (the registry, src/benchmarks/index.ts, is the list; the schema checks it). */
  benchmark: string;
  agent?: string;
  dataset?: string;
  samples?: number;
  num_instances?: number;
  seed?: number;
  shard_index?: number;
  num_shards?: number;
  /** Run as this many shards, each a runner process on this host, merged into one run (src/shards/local.ts). */
  shards?: number;
  /** What runs the shards: runner processes here, a Swarm replicated-job, a Kubernetes Indexed Job's manifest. */
  shard_engine?: "local" | "swarm" | "kubernetes";
  n?: number;
  k?: number[];
  per_task_timeout_seconds?: number;
  agent_timeout_seconds?: number;
  max_participant_reply_bytes?: number;
  interaction?: Interaction;
  max_turns?: number;
  episode_time_seconds?: number;
  turn_timeout_seconds?: number;
  command_timeout_seconds?: number;
  max_trajectory_bytes?: number;
  concurrency?: number;
  participant_concurrency?: number;
  max_infrastructure_failure_share?: number;
  sandbox?: SandboxBackendName;
  docker_hosts?: string[];
  swebench_image_template?: string;
  swebench_images?: Record<string, string>;
  terminal_base_images?: Record<string, string>;
  allow_network?: boolean;
  terminal_network?: string;
  run_id?: string;
  resume?: boolean;
  time_budget_seconds?: number;
  /** Give the participant a model gateway the run controls (src/gateway/); its calls are measured per item. */
  model_gateway?: boolean;
  /** With `model_gateway`: an item's calls are refused once it has cost this much, USD. */
  max_cost_per_item_usd?: number;
  /** With `model_gateway`: every call is refused once the run's cost plus its calls' reserved worst cases reach this much, USD. */
  max_cost_per_run_usd?: number;
  predictions?: string;
  repos_dir?: string;
  checkout?: "worktree" | "clone";
  strict_tests?: boolean;
  swebench_rules?: "5.0.2" | "4.1.0";
  input_mode?: "code" | "summary" | "details";
  replay_dataset_code?: boolean;
  scenarios?: number[];
  languages?: Array<"python" | "bash">;
  sparc_config?: string;
  sparc_metrics?: boolean;
  sparc_package_cache_dir?: string;
  sparc_npm_registry?: string;
  sparc_pip_index_url?: string;
  corpus_root?: string;
  package_ids_file?: string;
  simulation_mode?: string;
  rpc_url?: string;
  per_package_timeout_seconds?: number;
  max_plan_attempts?: number;
}

/**
 * Keys to which the schema gives a `default`: Ajv (`useDefaults`) fills them in
 * {@link resolveConfig}, so every resolved config has them. Kept equal to the
 * schema's defaults by tests/request-config/resolve.test.ts.
 */
export type SchemaDefaultedKey =
  | "dataset"
  | "allow_network"
  | "terminal_network"
  | "seed"
  | "n"
  | "k"
  | "per_task_timeout_seconds"
  | "agent_timeout_seconds"
  | "interaction"
  | "max_turns"
  | "episode_time_seconds"
  | "turn_timeout_seconds"
  | "command_timeout_seconds"
  | "max_trajectory_bytes"
  | "max_infrastructure_failure_share"
  | "sandbox"
  | "resume"
  | "swebench_image_template"
  | "checkout"
  | "strict_tests"
  | "swebench_rules"
  | "input_mode"
  | "replay_dataset_code"
  | "sparc_metrics";

/**
 * A config after {@link resolveConfig}: the schema's defaults applied and the
 * values every run needs fixed, so the green agent, the runner child, the
 * engine, results.json and the evaluation bundle all hold the same object.
 * Code that reads a resolved config never restates a default with `??`: the
 * type says the value is there.
 */
export type ResolvedConfig = AssessmentConfig &
  Required<Pick<AssessmentConfig, SchemaDefaultedKey>> & {
    /** The run id (generated when absent from the request): the one name of the run in every process. */
    run_id: string;
    /** This shard's index; 0 when the request does not shard. */
    shard_index: number;
    /** Number of shards; 1 when the request does not shard. */
    num_shards: number;
    /** Sandbox calls at once; default: this host's available parallelism. */
    concurrency: number;
    /** Questions to the participant at once; default `PARTICIPANT_LANES_PER_SLOT × concurrency`. */
    participant_concurrency: number;
  };
