import path from "node:path";
import type { Page } from "../render/html/model.js";
import { htmlPage } from "../render/html/page.js";
import { environmentScrub, scrubStrings } from "../secrets/scrub-strings.js";
import { writeWhole } from "./write-whole.js";

/**
 * `--html FILE` of eb report and eb compare: the page of documents read from run folders, each
 * file link relative to the page's folder, this environment's secrets scrubbed.
 */
export async function writeHtmlPage(file: string, page: Page, runDirs: readonly string[]) {
  const pageDir = path.dirname(path.resolve(file));
  const runHrefs = runDirs.map((dir) =>
    path.relative(pageDir, path.resolve(dir)).split(path.sep).join("/"),
  );
  const html = htmlPage(scrubStrings({ ...page, runHrefs }, environmentScrub()));
  await writeWhole(file, html, "--html", "the HTML page");
}
