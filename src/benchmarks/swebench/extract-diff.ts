/**
 * Pull a unified diff out of a participant's reply: a structured field, a
 * fenced block, or the diff embedded in prose.
 */

const FENCE = /```([\w+-]*)[^\n]*\n([\s\S]*?)```/g;

function looksLikeDiff(s: string): boolean {
  return /^diff --git /m.test(s) || (/^--- /m.test(s) && /^\+\+\+ /m.test(s) && /^@@ /m.test(s));
}

// Lines a unified diff (git flavour) may contain.
const DIFF_LINE =
  /^(diff --git |index |--- |\+\+\+ |@@ |[ +-]|\\ No newline|new file mode|deleted file mode|old mode|new mode|similarity index|rename from|rename to|copy from|copy to|Binary files)|^$/;

/** The diff starting at the first diff header, cut where non-diff prose resumes. */
function diffFromProse(text: string): string | null {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex(
    (l, i) => l.startsWith("diff --git ") || (l.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")),
  );
  if (start < 0) return null;
  let end = start;
  while (end < lines.length && DIFF_LINE.test(lines[end]!)) end++;
  // Trailing blank lines belong to the prose, not the diff.
  while (end > start && lines[end - 1] === "") end--;
  return lines.slice(start, end).join("\n") + "\n";
}

/**
 * The model patch in a reply, or null when there is none. Precedence: a
 * `model_patch`/`patch` string in a data part; a ```diff/```patch fence; any
 * fence whose content is a diff; a diff in plain text.
 */
export function extractDiff(text: string, data: Record<string, unknown>[] = []): string | null {
  for (const d of data) {
    for (const key of ["model_patch", "patch", "diff"]) {
      const v = d[key];
      if (typeof v === "string" && looksLikeDiff(v)) return v.endsWith("\n") ? v : v + "\n";
    }
  }
  const fences = [...text.matchAll(FENCE)].map((m) => ({ lang: m[1]!.toLowerCase(), body: m[2]! }));
  const chosen =
    fences.find((f) => (f.lang === "diff" || f.lang === "patch") && looksLikeDiff(f.body)) ??
    fences.find((f) => looksLikeDiff(f.body));
  if (chosen) return diffFromProse(chosen.body) ?? chosen.body;
  return looksLikeDiff(text) ? diffFromProse(text) : null;
}
