import type { AssessmentConfig } from "../request-config/config.js";

/** Options of one runner invocation: the request config plus where to write. */
export interface RunOptions extends AssessmentConfig {
  /** Output directory of the run (results, events, run_metadata, checkpoint). */
  out: string;
  /** Resolved run id (generated when absent from the config). */
  run_id: string;
}
