import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { RunComparison } from "../report/compare-runs.js";
import type { SummaryOptions } from "../report/run-summary.js";
import { TOOL_VERSION } from "../run/provenance.js";
import { secretValues } from "../secrets/collect.js";
import { createScrubber } from "../secrets/scrubber.js";
import { compareView } from "./compare-data.js";
import { CAP, runView } from "./data.js";
import type { PageModel, RunView } from "./model.js";
import { renderPage } from "./page.js";

export type Scrub = (text: string) => string;

/**
 * For a page built outside a run (`eb report`, `eb compare`): the run folder was scrubbed when
 * written, but the case file is read anew, so the environment's keys and tokens are removed.
 */
export function environmentScrub(): Scrub {
  return createScrubber(secretValues(process.env)).scrub;
}

/** The page every run folder holds: `<runDir>/report.html`, built from the folder alone. */
export async function writeRunHtml(
  runDir: string,
  scrub: Scrub,
  options: SummaryOptions = {},
): Promise<string> {
  const file = path.join(runDir, "report.html");
  await writeRunPage(runDir, file, scrub, options);
  return file;
}

/** `eb report RUN --html FILE`: the page of a run folder or rows file, written to `file`. */
export async function writeRunPage(
  location: string,
  file: string,
  scrub: Scrub,
  options: SummaryOptions = {},
): Promise<void> {
  const run = await runView(location, { ...options, pageDir: path.dirname(path.resolve(file)) });
  await writePage(file, scrub, {
    title: titleOf(run, "eval-banana report"),
    run,
    base: null,
    compare: null,
  });
}

/** `eb compare BASE CAND --html FILE`: both runs, their paired comparison, and what moved. */
export async function writeComparePage(
  locations: { base: string; cand: string },
  comparison: RunComparison,
  file: string,
  scrub: Scrub,
  options: SummaryOptions = {},
): Promise<void> {
  const pageDir = path.dirname(path.resolve(file));
  const [base, run] = await Promise.all([
    runView(locations.base, { ...options, pageDir }),
    runView(locations.cand, { ...options, pageDir }),
  ]);
  const compare = compareView(comparison, base, run);
  await writePage(file, scrub, { title: titleOf(run, "eval-banana compare"), run, base, compare });
}

async function writePage(
  file: string,
  scrub: Scrub,
  page: Omit<PageModel, "tool" | "cap">,
): Promise<void> {
  const model: PageModel = { ...page, tool: `eval-banana ${TOOL_VERSION}`, cap: CAP };
  await writeFile(file, renderPage(scrubStrings(model, scrub)));
}

function titleOf(run: RunView, what: string): string {
  const id = run.manifest?.runId;
  return id ? `${what} · ${id}` : what;
}

/**
 * Every string of the model through the run's scrubber, one by one: the case file is read from
 * the project, not from the (already scrubbed) run folder, and a secret must not survive in any
 * field, nor hide from the scrubber behind JSON's escapes.
 */
function scrubStrings<T>(value: T, scrub: Scrub): T {
  if (typeof value === "string") return scrub(value) as T;
  if (Array.isArray(value)) return value.map((entry) => scrubStrings(entry, scrub)) as T;
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).map(([key, entry]) => [
    scrub(key),
    scrubStrings(entry, scrub),
  ]);
  return Object.fromEntries(entries) as T;
}
