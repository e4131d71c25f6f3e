import { createHash } from "node:crypto";

const LABEL_MAX = 40;

/**
 * The seed's filesystem-safe stem of a check id: a readable label of at most 40 characters plus
 * the full SHA-256 of the exact id, so ids that differ only in case or punctuation never share
 * files, even on case-insensitive filesystems.
 */
export function safeStem(id: string): string {
  const label = trimEdges(trimEdges(id.replaceAll(/[^A-Za-z0-9._-]+/g, "_")).slice(0, LABEL_MAX));
  const digest = createHash("sha256").update(id, "utf8").digest("hex");
  return `${label || "check"}-${digest}`;
}

function trimEdges(text: string): string {
  return text.replace(/^[._]+/, "").replace(/[._]+$/, "");
}

/** With several samples each gets its own files: `<stem>.sample-<n>.*`. */
export function sampleStem(stem: string, sample: number, samples: number): string {
  return samples === 1 ? stem : `${stem}.sample-${sample}`;
}
