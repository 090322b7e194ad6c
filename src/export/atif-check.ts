/**
 * Problems of a document as ATIF v1.7: its schema (schemas/atif_trajectory.schema.json), then the rules a schema
 * cannot state — step ids 1, 2, 3… in order; fields only an agent step may carry; each observation result's
 * `source_call_id` naming a tool call of its own step.
 */
import { checkAgainst } from "../util/schema.js";

export const ATIF_SCHEMA_FILE = "atif_trajectory.schema.json";

const AGENT_ONLY = ["model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every problem found, each with its JSON path; empty when `doc` is valid. */
export function atifProblems(doc: unknown): string[] {
  const problems = checkAgainst(ATIF_SCHEMA_FILE, doc);
  if (problems.length > 0 || !isObj(doc)) return problems;
  const steps = doc["steps"] as Obj[];
  steps.forEach((step, i) => {
    const at = `/steps/${i}`;
    if (step["step_id"] !== i + 1) problems.push(`${at}/step_id: expected ${i + 1}, got ${String(step["step_id"])}`);
    if (step["source"] !== "agent")
      for (const key of AGENT_ONLY) if (key in step) problems.push(`${at}/${key}: only an agent step may carry it`);
    if (step["llm_call_count"] === 0 && "metrics" in step)
      problems.push(`${at}/metrics: must be absent when llm_call_count is 0`);
    const callIds = new Set(((step["tool_calls"] as Obj[] | undefined) ?? []).map((c) => c["tool_call_id"]));
    const results = ((step["observation"] as Obj | undefined)?.["results"] as Obj[] | undefined) ?? [];
    results.forEach((r, j) => {
      const id = r["source_call_id"];
      if (typeof id === "string" && !callIds.has(id))
        problems.push(`${at}/observation/results/${j}/source_call_id: "${id}" is not a tool call of this step`);
    });
  });
  return problems;
}
