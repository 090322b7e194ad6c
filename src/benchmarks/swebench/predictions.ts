/**
 * SWE-bench predictions files: `{instance_id, model_name_or_path, model_patch}`
 * as a JSON list, JSONL, or (as SWE-bench's harness also accepts) an object
 * keyed by instance id.
 */
import { readFile } from "node:fs/promises";
import { InputFileError } from "../../util/errors.js";
import { jsonErrorWhere, parseJsonRecords } from "./instance.js";

export interface Prediction {
  instance_id: string;
  model_name_or_path: string;
  /** The diff; null/absent means the model produced no patch. */
  model_patch: string | null;
}

/** Parse predictions text; later entries for the same id are an error. */
export function parsePredictions(text: string, source: string): Map<string, Prediction> {
  const trimmed = text.trim();
  let records: unknown[];
  if (trimmed.startsWith("{") && !trimmed.includes("\n{")) {
    let obj: unknown;
    try {
      obj = JSON.parse(text);
    } catch (err) {
      throw new InputFileError(source, `invalid JSON: ${jsonErrorWhere(text, err as Error)}`, { cause: err });
    }
    const o = obj as Record<string, unknown>;
    records = typeof o["instance_id"] === "string" ? [o] : Object.values(o);
  } else {
    records = parseJsonRecords(text, source);
  }
  const out = new Map<string, Prediction>();
  records.forEach((raw, i) => {
    const where = `${source} [${i}]`;
    if (typeof raw !== "object" || raw === null) throw new InputFileError(where, "a prediction must be an object");
    const r = raw as Record<string, unknown>;
    const id = r["instance_id"];
    if (typeof id !== "string" || id === "") throw new InputFileError(where, 'missing "instance_id"');
    const patch = r["model_patch"];
    if (patch !== undefined && patch !== null && typeof patch !== "string") {
      throw new InputFileError(where, '"model_patch" must be a string or null');
    }
    if (out.has(id)) throw new InputFileError(source, `duplicate prediction for "${id}"`);
    out.set(id, {
      instance_id: id,
      model_name_or_path: typeof r["model_name_or_path"] === "string" ? r["model_name_or_path"] : "unknown",
      model_patch: typeof patch === "string" ? patch : null,
    });
  });
  return out;
}

/** Read and parse a predictions file. */
export async function loadPredictions(path: string): Promise<Map<string, Prediction>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new InputFileError(path, `cannot read: ${(err as Error).message}`, { cause: err });
  }
  return parsePredictions(text, path);
}

/** Predictions as JSONL in the official / sb-cli format, one record per line, in the given order. */
export function predictionsJsonl(predictions: readonly Prediction[]): string {
  return (
    predictions
      .map((p) =>
        JSON.stringify({
          instance_id: p.instance_id,
          model_name_or_path: p.model_name_or_path,
          model_patch: p.model_patch,
        }),
      )
      .join("\n") + (predictions.length ? "\n" : "")
  );
}
