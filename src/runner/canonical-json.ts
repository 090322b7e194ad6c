/**
 * JSON the way Python's `json.dumps(value, sort_keys=True,
 * separators=(",", ":"))` writes it (smi_bench's checksum input): keys sorted
 * by code point, no whitespace, non-ASCII escaped as \uXXXX (Python's default
 * `ensure_ascii=True`). Known difference: Python writes floats with integral
 * values as `1.0`, JavaScript as `1`; checksums of our own files are stable,
 * cross-language verification of such floats is not.
 */
export function canonicalJson(value: unknown): string {
  return encode(value);
}

/**
 * Canonical JSON encoded earlier (by {@link canonicalJson}), emitted verbatim
 * where it stands in a value. Why: finished checkpoint rows never change, so
 * their encoding is computed once instead of on every checkpoint write.
 */
export class CanonicalFragment {
  constructor(readonly json: string) {}
}

function encode(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (value instanceof CanonicalFragment) return value.json;
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      // Python writes NaN/Infinity literally; JSON.stringify writes null. Neither is valid JSON; keep null.
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "string":
      return escapeString(value);
    case "object": {
      if (Array.isArray(value)) return "[" + value.map(encode).join(",") + "]";
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort(compareCodePoints);
      return "{" + keys.map((k) => escapeString(k) + ":" + encode(obj[k])).join(",") + "}";
    }
    default:
      return "null";
  }
}

// Lone or paired surrogates: the only UTF-16 code units whose order differs from code-point order.
const SURROGATE = /[\ud800-\udfff]/;

function compareCodePoints(a: string, b: string): number {
  // Fast path (why: this runs for every key of every checkpointed row): without surrogates,
  // UTF-16 code-unit order — JavaScript's `<` on strings — is code-point order.
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const ca = Array.from(a, (c) => c.codePointAt(0) ?? 0);
  const cb = Array.from(b, (c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const d = (ca[i] ?? 0) - (cb[i] ?? 0);
    if (d !== 0) return d;
  }
  return ca.length - cb.length;
}

function escapeString(s: string): string {
  // JSON.stringify escapes quotes, backslashes and control characters like Python; then escape non-ASCII.
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}
