import { oneLine } from "../report/reason.js";
import { terminalSafe } from "../report/terminal.js";

/** Characters of an id kept where a job summary or a comment must stay bounded. */
export const ID_CHARS = 120;

/** Keeps a value inside one table cell. */
export function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\s+/g, " ");
}

/**
 * Foreign text (an id, a stratum, a tag, a grader's name, a reason) as a code span, in a table
 * cell or anywhere: GitHub renders no HTML, link, image or @mention inside one, so the text
 * cannot ping anyone or embed an image. On one line, control and bidi characters made visible
 * as on the terminal (`\u202e`), cut to `max` characters, and fenced by more backticks than the
 * longest run of them in the text (CommonMark), so no backtick of its own ends the span.
 */
export function code(text: string, max = Number.POSITIVE_INFINITY): string {
  const inner = cell(oneLine(text, max));
  if (inner === "") return "";
  const fence = "`".repeat(longestBacktickRun(inner) + 1);
  // CommonMark strips one space from each side: a backtick at an end would join the fence.
  const padded = inner.startsWith("`") || inner.endsWith("`") ? ` ${inner} ` : inner;
  return `${fence}${padded}${fence}`;
}

/** Foreign text of several lines (an error's detail) as a fenced code block: none of it renders. */
export function codeBlock(text: string): string[] {
  const safe = terminalSafe(text);
  const fence = "`".repeat(Math.max(3, longestBacktickRun(safe) + 1));
  return [fence, safe, fence];
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  return longest;
}
