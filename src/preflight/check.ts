/** One preflight check's verdict: ✓/✗ line plus, for a ✗, what to do about it. */
export interface CheckResult {
  /** Short name: node, dataset, sandbox, tools, sandbox_env, runner, participant, ports, smoke. */
  name: string;
  ok: boolean;
  /** What was found. */
  detail: string;
  /** For a ✗: the operator's next step. */
  fix?: string;
  /** Extra lines (warnings, smoke output) printed indented under the verdict. */
  notes?: string[];
}

export const pass = (name: string, detail: string, notes?: string[]): CheckResult => ({
  name,
  ok: true,
  detail,
  ...(notes ? { notes } : {}),
});
export const fail = (name: string, detail: string, fix: string, notes?: string[]): CheckResult => ({
  name,
  ok: false,
  detail,
  fix,
  ...(notes ? { notes } : {}),
});

/** Render a result as printed lines. */
export function renderCheck(r: CheckResult): string[] {
  const lines = [`${r.ok ? "✓" : "✗"} ${r.name}: ${r.detail}`];
  for (const n of r.notes ?? []) lines.push(`    ${n}`);
  if (!r.ok && r.fix) lines.push(`    → ${r.fix}`);
  return lines;
}
