/**
 * The run's token usage by where each number came from, summed over its rows:
 * `measured` (the run's model gateway counted the upstream's own `usage`),
 * `self_reported` (`usage` in the participant's reply metadata) and
 * `traceability` (the A2A Traceability extension's steps): the last two are
 * the participant's word. The aggregate's `usage_by_source`; absent when no
 * row has any.
 */
import { addUsage, type TokenUsage } from "../a2a/shared/usage.js";
import { addTraceabilityUsage, type TraceabilityUsage } from "../a2a/shared/traceability.js";
import { addMeasured, type MeasuredUsage } from "../gateway/ledger.js";
import type { ResultRow, UsageBySource } from "../results-file/document.js";

export class UsageTotals {
  private measured: MeasuredUsage | undefined;
  private reported: { usage: TokenUsage; items: number } | undefined;
  private traced: { usage: TraceabilityUsage; items: number } | undefined;

  add(row: ResultRow): void {
    if (row.measured_usage !== undefined)
      this.measured = this.measured ? addMeasured(this.measured, row.measured_usage) : { ...row.measured_usage };
    if (row.usage !== undefined)
      this.reported = {
        usage: addUsage(this.reported?.usage, row.usage) ?? row.usage,
        items: (this.reported?.items ?? 0) + 1,
      };
    if (row.traceability_usage !== undefined)
      this.traced = {
        usage: addTraceabilityUsage(this.traced?.usage, row.traceability_usage) ?? row.traceability_usage,
        items: (this.traced?.items ?? 0) + 1,
      };
  }

  /** `{usage_by_source}` for the aggregate, or `{}` when no row had usage of any source. */
  aggregate(): { usage_by_source?: UsageBySource } {
    const out: UsageBySource = {};
    if (this.measured) out.measured = this.measured;
    if (this.reported) out.self_reported = { ...this.reported.usage, items: this.reported.items };
    if (this.traced) out.traceability = { ...this.traced.usage, items: this.traced.items };
    return Object.keys(out).length > 0 ? { usage_by_source: out } : {};
  }
}
