import { randomBytes } from "node:crypto";

/** A fresh run id: `<prefix>-<UTC yyyymmddThhmmss>-<hex>` (`hexBytes` random bytes, default 2). */
export function generateRunId(prefix: string, now = new Date(), hexBytes = 2): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "");
  return `${prefix}-${stamp}-${randomBytes(hexBytes).toString("hex")}`;
}
