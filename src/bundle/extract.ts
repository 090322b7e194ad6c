/**
 * Find the evaluation bundle in what a user saved: a bare bundle, a JSON-RPC
 * response (`result.artifacts[name=="evaluation_bundle"]`, v0.3 `kind` parts or
 * 1.0 `content` parts), a bare Task, or an SSE artifact-update event. The
 * bundle is the artifact's first DataPart, or a TextPart whose text is JSON.
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

function fromArtifacts(artifacts: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(artifacts)) return undefined;
  for (const a of artifacts) {
    if (!isObject(a) || a["name"] !== "evaluation_bundle" || !Array.isArray(a["parts"])) continue;
    for (const p of a["parts"]) {
      const obj = partObject(p);
      if (obj) return obj;
    }
  }
  return undefined;
}

/** Locate the bundle inside `doc`. */
export function extractBundle(doc: unknown): ExtractResult {
  if (!isObject(doc)) return { ok: false, reason: "not a JSON object" };
  if ("spec_url" in doc || "schema_version" in doc) return { ok: true, bundle: doc, source: "bare bundle" };
  if ("error" in doc && !("result" in doc)) {
    return { ok: false, reason: `JSON-RPC error response: ${JSON.stringify(doc["error"])}` };
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
