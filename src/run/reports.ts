import { writeFile } from "node:fs/promises";
import path from "node:path";
import { htmlPage } from "../render/html/page.js";
import type { RunDocument } from "../report/document.js";
import { type Scrub, scrubStrings } from "../secrets/scrub-strings.js";

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
export async function writeReports(runDir: string, reports: Reports, scrub: Scrub): Promise<void> {
  await writeFile(
    path.join(runDir, "report.json"),
    scrub(`${JSON.stringify(reports.report, null, 2)}\n`),
  );
  await writeFile(path.join(runDir, "report.md"), scrub(reports.markdown));
}

/**
 * report.html, rendered from the run's document in memory: nothing of the run folder is read
 * again. The page is a view of what is already on disk: failing to write it loses nothing, so
 * it is a warning.
 */
export async function writeHtmlReport(
  runDir: string,
  document: RunDocument,
  scrub: Scrub,
  warn: (message: string) => void,
): Promise<void> {
  try {
    const page = htmlPage(scrubStrings({ documents: [document], leaderboard: null }, scrub));
    await writeFile(path.join(runDir, "report.html"), page);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    warn(scrub(`report.html was not written: ${why}`));
  }
}
