import { TOOL_VERSION } from "../version.js";

/** The files `eb schema` describes; apart from the schemas, so `eb --help` need not load them. */
export const SCHEMA_NAMES = ["checks", "cases", "config", "report", "rows"] as const;
export type SchemaName = (typeof SCHEMA_NAMES)[number];

/** What each schema describes, for `eb schema --help`. */
export const SCHEMA_SUBJECTS: Record<SchemaName, string> = {
  checks: "a check file (*.yaml in eval_checks/)",
  cases: "one line of a JSONL case file",
  config: ".eval-banana/config.toml",
  report: "report.json of a run folder (eb run, eb eval or eb pairwise)",
  rows: "one line of rows.jsonl (the manifest line or a row)",
};

export function schemaFile(name: SchemaName): string {
  return `${name}.schema.json`;
}

/** Where the published package serves each schema (its `$id`): this version's copy on unpkg. */
export function schemaId(name: SchemaName): string {
  return `https://unpkg.com/eval-banana@${TOOL_VERSION}/schemas/${schemaFile(name)}`;
}
