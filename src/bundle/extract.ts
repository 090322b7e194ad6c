/**
 * Find the evaluation bundle in what a user saved: a bare bundle, a JSON-RPC
 * response (`result.artifacts[name=="evaluation_bundle"]`, v0.3 `kind` parts or
 * 1.0 `content` parts), a bare Task, an SSE artifact-update event, or the smoke
 * client's saved response (`{..., events: [<every SSE JSON-RPC response>]}`,
 * whose artifact updates are joined per artifactId, appended chunks in order).
 * The bundle is the artifact's first DataPart, or a TextPart whose text (all
 * its text parts joined) is JSON.
 */
export type ExtractResult = { ok: true; bundle: unknown; source: string } | { ok: false; reason: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The JSON object carried by one part (v0.3 or 1.0 shape), if any. */
function partObject(part: unknown): Record<string, unknown> | undefined {
  if (!isObject(part)) return undefined;
  let data: unknown = part["data"];
  let text: unknown = part["text"];
  const content = part["content"];
  if (isObject(content)) {
    if (content["$case"] === "data") data = content["value"];
    if (content["$case"] === "text") text = content["value"];
  }
  if (isObject(data)) return data;
  if (typeof text === "string") {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isObject(parsed)) return parsed;
    } catch {
      // plain text (a summary), not the bundle
    }
  }
  return undefined;
}

function textOfPart(part: unknown): string | undefined {
  if (!isObject(part)) return undefined;
  if (typeof part["text"] === "string") return part["text"];
  const content = part["content"];
  return isObject(content) && content["$case"] === "text" && typeof content["value"] === "string"
    ? content["value"]
    : undefined;
}

function fromArtifacts(artifacts: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(artifacts)) return undefined;
  for (const a of artifacts) {
    if (!isObject(a) || a["name"] !== "evaluation_bundle" || !Array.isArray(a["parts"])) continue;
    for (const p of a["parts"]) {
      const obj = partObject(p);
      if (obj) return obj;
    }
    // A JSON text streamed in several chunks: only the joined text parses.
    const joined = a["parts"]
      .map(textOfPart)
      .filter((t) => t !== undefined)
      .join("");
    const obj = partObject({ text: joined });
    if (obj) return obj;
  }
  return undefined;
}

/**
 * The artifacts of a saved stream: artifact-update events joined per
 * artifactId (an `append` adds its parts to the earlier ones, otherwise it
 * replaces them), then the artifacts of any task snapshot in the stream.
 */
function streamArtifacts(events: readonly unknown[]): Record<string, unknown>[] {
  const byId = new Map<string, Record<string, unknown>>();
  const fromTasks: unknown[] = [];
  for (const ev of events) {
    const r = isObject(ev) && isObject(ev["result"]) ? ev["result"] : isObject(ev) ? ev : undefined;
    if (!r) continue;
    const taskArtifacts: unknown = r["artifacts"];
    if (Array.isArray(taskArtifacts)) fromTasks.push(...(taskArtifacts as unknown[]));
    const a = r["artifact"];
    if (!isObject(a) || !Array.isArray(a["parts"])) continue;
    const parts = a["parts"] as unknown[];
    const id = typeof a["artifactId"] === "string" ? a["artifactId"] : `#${byId.size}`;
    const prev = byId.get(id);
    if (prev && r["append"] === true) (prev["parts"] as unknown[]).push(...parts);
    else byId.set(id, { ...a, parts: [...parts] });
  }
  return [...byId.values(), ...fromTasks.filter(isObject)];
}

/** Locate the bundle inside `doc`. */
export function extractBundle(doc: unknown): ExtractResult {
  if (!isObject(doc)) return { ok: false, reason: "not a JSON object" };
  if ("spec_url" in doc || "schema_version" in doc) return { ok: true, bundle: doc, source: "bare bundle" };
  if ("error" in doc && !("result" in doc)) {
    return { ok: false, reason: `JSON-RPC error response: ${JSON.stringify(doc["error"])}` };
  }
  if (Array.isArray(doc["events"])) {
    const events = doc["events"];
    const bundle = fromArtifacts(streamArtifacts(events));
    if (bundle) return { ok: true, bundle, source: "saved stream: events[].result.artifact[name=evaluation_bundle]" };
    const state = typeof doc["final_state"] === "string" ? `; the task ended "${doc["final_state"]}"` : "";
    const transport = typeof doc["transport_error"] === "string" ? `; transport error: ${doc["transport_error"]}` : "";
    return {
      ok: false,
      reason: `saved stream of ${events.length} event(s) has no evaluation_bundle artifact with a DataPart or JSON TextPart${state}${transport}`,
    };
  }
  const candidates: Array<[string, unknown]> = [];
  const result = doc["result"];
  if (isObject(result)) {
    candidates.push(["result.artifacts", result["artifacts"]]);
    if (isObject(result["task"])) candidates.push(["result.task.artifacts", result["task"]["artifacts"]]);
    if (isObject(result["artifact"])) candidates.push(["result.artifact", [result["artifact"]]]);
  }
  candidates.push(["artifacts", doc["artifacts"]]);
  if (isObject(doc["artifact"])) candidates.push(["artifact", [doc["artifact"]]]);
  for (const [where, artifacts] of candidates) {
    const bundle = fromArtifacts(artifacts);
    if (bundle) return { ok: true, bundle, source: `${where}[name=evaluation_bundle]` };
  }
  return { ok: false, reason: "no evaluation_bundle artifact with a DataPart or JSON TextPart found" };
}
