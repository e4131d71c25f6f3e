import { writeFile } from "node:fs/promises";
import path from "node:path";
import { documentJson } from "../report/json.js";

/** What a run folder's reports are made of. */
export interface Reports {
  /** Written as report.json. */
  report: unknown;
  /** report.md, report.html: as the front door rendered them. */
  files: readonly { name: string; text: string }[];
}

/**
 * The reports of a run folder, written in one place for a run and for `eb merge` alike (every
 * report a run folder gets belongs here). `scrub` keeps secrets out of them. report.json is the
 * run's document: failing to write it stops the run. The other files are views of it: one that
 * cannot be written is a warning (returned), and loses nothing.
 */
export async function writeReports(
  runDir: string,
  reports: Reports,
  scrub: (text: string) => string,
): Promise<string[]> {
  await writeFile(path.join(runDir, "report.json"), scrub(documentJson(reports.report)));
  const warnings: string[] = [];
  for (const file of reports.files) {
    await writeFile(path.join(runDir, file.name), scrub(file.text)).catch((error: unknown) => {
      const why = error instanceof Error ? error.message : String(error);
      warnings.push(scrub(`${file.name} was not written: ${why}`));
    });
  }
  return warnings;
}
