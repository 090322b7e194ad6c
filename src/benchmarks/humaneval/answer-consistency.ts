/**
 * Whether a candidate answered the same call differently in two answer rounds
 * of the batch replay (replay.ts). Round r replays round r−1's calls up to the
 * point where the check diverged, unchanged and in the same order, so a
 * program whose answers depend on its arguments gives the same answers there,
 * and the check then diverges strictly later or not at all. A program that
 * answers them differently (random, the clock, a count of rounds) could keep
 * the check diverging until the round bound, and so turn its own row into our
 * error; with this test that is its failure instead.
 *
 * Answers are compared as values, not bytes: dict pairs and set elements are
 * put in a canonical order first (an honest dict built from a set of strings
 * may iterate differently in another process).
 */

/**
 * One answer line, with dict pairs and set elements in canonical order, an exception by its type only (a message
 * may carry an address or a set's order, which change between processes); the raw line if it is not JSON.
 */
function canonicalLine(line: string): string {
  try {
    const v = JSON.parse(line) as unknown;
    if (typeof v === "object" && v !== null && "exc" in v && Array.isArray(v.exc))
      return JSON.stringify({ i: (v as { i?: unknown }).i, exc: v.exc[0] as unknown });
    return JSON.stringify(canonical(v));
  } catch {
    return line;
  }
}

function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v !== "object" || v === null) return v;
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length === 1) {
    const [tag, body] = entries[0]!;
    if ((tag === "s" || tag === "fs") && Array.isArray(body)) return { [tag]: sortByJson(body.map(canonical)) };
    if (tag === "d" && Array.isArray(body)) return { d: sortByJson(body.map(canonical)) };
  }
  return Object.fromEntries(
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, x]) => [k, canonical(x)]),
  );
}

function sortByJson(items: unknown[]): unknown[] {
  return items
    .map((x) => [JSON.stringify(x), x] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, x]) => x);
}

/**
 * The first call index below `upTo` whose answer line differs (as a value) between two rounds' answer
 * channels, or null. A line present in one round and absent in the other is not a change (a crash or a
 * timeout ends a round early; that is judged as such).
 */
export function firstChangedAnswer(before: string, after: string, upTo: number): number | null {
  const a = before.split("\n");
  const b = after.split("\n");
  const n = Math.min(upTo, a.length - 1, b.length - 1);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i] && canonicalLine(a[i]!) !== canonicalLine(b[i]!)) return i;
  }
  return null;
}
