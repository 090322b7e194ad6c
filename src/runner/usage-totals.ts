/**
 * The run's token usage by where each number came from, summed over its rows:
 * `measured` (the run's model gateway counted the upstream's own `usage`),
 * `self_reported` and `traceability` (the participant's word, in its reply's
 * metadata or through the Traceability extension). The aggregate's
 * `usage_by_source`; absent when no row has any.
 */
import { addUsage, type TokenUsage } from "../a2a/shared/usage.js";
import { addMeasured, type MeasuredUsage } from "../gateway/ledger.js";
import type { ResultRow, UsageBySource } from "../results-file/document.js";

export class UsageTotals {
  private measured: MeasuredUsage | undefined;
  private readonly reported: Partial<Record<"self_reported" | "traceability", { usage: TokenUsage; items: number }>> =
    {};

  add(row: ResultRow): void {
    if (row.measured_usage !== undefined)
      this.measured = this.measured ? addMeasured(this.measured, row.measured_usage) : { ...row.measured_usage };
    if (row.usage !== undefined) {
      const source = row.usage_source ?? "self_reported";
      const sum = this.reported[source];
      this.reported[source] = {
        usage: addUsage(sum?.usage, row.usage) ?? row.usage,
        items: (sum?.items ?? 0) + 1,
      };
    }
  }

  /** `{usage_by_source}` for the aggregate, or `{}` when no row had usage of any source. */
  aggregate(): { usage_by_source?: UsageBySource } {
    const out: UsageBySource = {};
    if (this.measured) out.measured = this.measured;
    for (const source of ["self_reported", "traceability"] as const) {
      const r = this.reported[source];
      if (r) out[source] = { ...r.usage, items: r.items };
    }
    return Object.keys(out).length > 0 ? { usage_by_source: out } : {};
  }
}
