import { describe, expect, test } from "vitest";
import { isIsoTimestamp } from "../../../src/a2a/server/timestamp.js";

describe("isIsoTimestamp (A2A 1.0 §5.6.1)", () => {
  test("accepts RFC 3339 date-times with Z or an offset, 0-9 fractional digits", () => {
    for (const ok of [
      "2025-10-28T10:30:00.000Z",
      "2025-10-28T10:30:00Z",
      "2026-11-25T12:55:00.123456+00:00",
      "2024-02-29T23:59:59.999999999-05:30",
      "0050-01-01T00:00:00Z",
    ]) {
      expect(isIsoTimestamp(ok), ok).toBe(true);
    }
  });

  test("refuses what Date.parse is lenient about", () => {
    for (const bad of [
      "-1",
      "0",
      "yesterday",
      "2025-10-28",
      "2025-10-28 10:30:00Z",
      "2025-10-28T10:30:00",
      "2025-02-30T00:00:00Z",
      "2025-02-29T00:00:00Z",
      "2025-10-28T24:00:00Z",
      "2025-10-28T10:60:00Z",
      "2025-10-28T10:30:00+25:00",
      "2025-10-28T10:30:00.Z",
      " 2025-10-28T10:30:00Z",
    ]) {
      expect(isIsoTimestamp(bad), bad).toBe(false);
    }
  });
});
