import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Pricing } from "../config/schema.js";
import { writeRunHtml } from "../html/write.js";

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

/**
 * report.html, once the rows file is complete (its manifest closed, so the page says when the
 * run ended). The page is a view of what is already on disk: failing to build it loses nothing,
 * so it is a warning.
 */
export async function writeHtmlReport(
  runDir: string,
  scrub: (text: string) => string,
  pricing: Pricing,
  warn: (message: string) => void,
): Promise<void> {
  await writeRunHtml(runDir, scrub, { pricing }).catch((error: unknown) => {
    const why = error instanceof Error ? error.message : String(error);
    warn(scrub(`report.html was not written: ${why}`));
  });
}
