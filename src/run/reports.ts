import { writeFile } from "node:fs/promises";
import path from "node:path";

/** What a run folder's reports are made of. */
export interface Reports {
  /** Written as report.json. */
  report: unknown;
  markdown: string;
}

/**
 * The reports of a run folder, written in one place for a run and for `eb merge` alike (every
 * report a run folder gets belongs here). `scrub` keeps secrets out of them.
 */
export async function writeReports(
  runDir: string,
  reports: Reports,
  scrub: (text: string) => string,
): Promise<void> {
  await writeFile(
    path.join(runDir, "report.json"),
    scrub(`${JSON.stringify(reports.report, null, 2)}\n`),
  );
  await writeFile(path.join(runDir, "report.md"), scrub(reports.markdown));
}
