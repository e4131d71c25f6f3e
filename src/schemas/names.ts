/** The files `eb schema` describes; kept apart so `eb --help` lists them without loading zod. */
export const SCHEMA_NAMES = ["checks", "cases", "config", "report", "rows"] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

/** What each schema describes, for `eb schema --help`. */
export const SCHEMA_SUBJECTS: Record<SchemaName, string> = {
  checks: "a check file (*.yaml in eval_checks/)",
  cases: "one line of a JSONL case file",
  config: ".eval-banana/config.toml",
  report: "report.json of a run folder (eb run or eb eval)",
  rows: "one line of rows.jsonl (the manifest line or a row)",
};
