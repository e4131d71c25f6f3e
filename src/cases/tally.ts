import type { StoredRow } from "../run/record.js";

/**
 * What `eb eval` keeps beyond the shared row aggregates: why each item fell short and which
 * model versions answered. Rows themselves stay on disk (their texts can be large).
 */
export class CaseTally {
  readonly modelVersions = new Set<string>();
  /** Why the first failing or erroring sample of an item fell short. */
  readonly problems = new Map<string, string>();

  add(row: StoredRow): void {
    if (row.status !== "passed" && !this.problems.has(row.id)) {
      this.problems.set(row.id, problemOf(row));
    }
    if (typeof row.model_version === "string") this.modelVersions.add(row.model_version);
  }
}

function problemOf(row: StoredRow): string {
  const sample = `sample ${row.sample ?? 0}: `;
  if (row.status === "error") return `${sample}error: ${row.error ?? "unknown error"}`;
  const failed = Object.entries(row.marks ?? {}).filter(([, pass]) => !pass);
  const why = failed.map(
    ([name]) => `${name}${row.reasons?.[name] ? ` (${row.reasons[name]})` : ""}`,
  );
  return `${sample}failed ${why.join(", ")}`;
}
