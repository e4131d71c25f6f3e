import type { CaseRow } from "../cases/run-case.js";
import { RowTally } from "./row-tally.js";

/**
 * What `eb eval` keeps beyond the shared row aggregates: why each item fell short and which
 * model versions answered. Rows themselves stay on disk (their texts can be large).
 */
export class CaseTally {
  readonly rows = new RowTally();
  readonly modelVersions = new Set<string>();
  /** Why the first failing or erroring sample of an item fell short. */
  readonly problems = new Map<string, string>();

  /** `cases` fixes the items' order in the reports: the case file's. */
  constructor(readonly cases: readonly { id: string }[]) {}

  add(row: CaseRow): void {
    this.rows.add(row);
    if (row.status !== "passed" && !this.problems.has(row.id)) {
      this.problems.set(row.id, problemOf(row));
    }
    if (row.model_version !== null) this.modelVersions.add(row.model_version);
  }
}

function problemOf(row: CaseRow): string {
  const sample = `sample ${row.sample}: `;
  if (row.status === "error") return `${sample}error: ${row.error ?? "unknown error"}`;
  const failed = Object.entries(row.marks).filter(([, pass]) => !pass);
  const why = failed.map(
    ([name]) => `${name}${row.reasons?.[name] ? ` (${row.reasons[name]})` : ""}`,
  );
  return `${sample}failed ${why.join(", ")}`;
}
