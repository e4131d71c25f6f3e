import type { RunDocument } from "../report/document.js";
import { htmlPage } from "./html/page.js";
import { pairwiseMarkdown } from "./pairwise-text.js";
import { runMarkdown } from "./run-markdown.js";

/** The formats a run folder can hold beside rows.jsonl and report.json (`[report] formats`). */
export type RunFormat = "md" | "html";

/** One file of a run folder, by its name there. */
export interface RunFile {
  name: string;
  text: string;
}

/**
 * The files of a run folder in the formats asked for, each rendered from the document (already
 * scrubbed, string by string). A page that cannot be rendered is left out with the reason:
 * the run's results are in report.json whatever happens here.
 */
export function runFiles(
  doc: RunDocument,
  formats: readonly RunFormat[],
): { files: RunFile[]; problems: string[] } {
  const files: RunFile[] = [];
  const problems: string[] = [];
  if (formats.includes("md")) {
    const text = doc.pairwise
      ? pairwiseMarkdown({ ...doc, pairwise: doc.pairwise })
      : runMarkdown(doc);
    files.push({ name: "report.md", text });
  }
  if (formats.includes("html")) {
    try {
      files.push({ name: "report.html", text: htmlPage({ documents: [doc], leaderboard: null }) });
    } catch (error) {
      problems.push(
        `report.html was not written: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return { files, problems };
}
