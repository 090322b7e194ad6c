/**
 * ISO 8601 timestamps as the A2A wire carries them (1.0 §5.6.1: a
 * `google.protobuf.Timestamp` in JSON, "YYYY-MM-DDTHH:mm:ss.sssZ"). Accepted
 * here: the RFC 3339 profile that protobuf's JSON mapping reads, i.e. a full
 * date and time, 0–9 fractional digits, and `Z` or a `±HH:MM` offset (clients
 * such as Python's `datetime.isoformat()` write `+00:00`). Refused: anything
 * else, including what `Date.parse` is lenient about (V8 reads "-1" as
 * 2001-01-01, and "2025-02-30" rolls over into March).
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Whether `value` is a valid ISO 8601 (RFC 3339) date-time with a UTC designator or offset. */
export function isIsoTimestamp(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const offsetHours = m[7] === undefined ? 0 : Number(m[7]);
  const offsetMinutes = m[8] === undefined ? 0 : Number(m[8]);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return false;
  // A real calendar day: Date rolls 2025-02-30 over to March, which the round trip catches
  // (setUTCFullYear, unlike Date.UTC, keeps years below 100 as they are).
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
