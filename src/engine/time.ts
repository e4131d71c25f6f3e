import { randomBytes } from "node:crypto";

/** ISO-8601 UTC with microseconds and an explicit offset, as the Python original writes it. */
export function isoUtc(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
}

/** `YYYYMMDD_HHMMSS_<8 hex>` in UTC. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "_").slice(0, 15);
  return `${stamp}_${randomBytes(4).toString("hex")}`;
}
