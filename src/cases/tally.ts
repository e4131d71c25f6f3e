import type { StoredRow } from "../report/record.js";

/**
 * What `eb eval` keeps beyond the shared row aggregates: which model versions answered. Rows
 * themselves stay on disk (their texts can be large).
 */
export class CaseTally {
  readonly modelVersions = new Set<string>();

  add(row: StoredRow): void {
    if (typeof row.model_version === "string") this.modelVersions.add(row.model_version);
  }
}
