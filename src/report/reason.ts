import { terminalSafe } from "./terminal.js";

/** Characters a reason keeps: enough to see why; the whole story is in the row's files. */
export const REASON_CHARS = 300;

/**
 * `text` as a reason: one line (runs of whitespace, newlines included, become one space),
 * control characters made visible, at most `max` characters with an ellipsis where it was cut.
 */
export function oneLine(text: string, max = REASON_CHARS): string {
  const flat = terminalSafe(text.replace(/\s+/g, " ").trim());
  return flat.length > max ? `${head(flat, max - 1)}…` : flat;
}

/** The first `count` UTF-16 units of `text`, one fewer rather than half a surrogate pair. */
export function head(text: string, count: number): string {
  const code = text.charCodeAt(count - 1);
  const splitsPair = code >= 0xd800 && code <= 0xdbff;
  return text.slice(0, splitsPair ? count - 1 : count);
}
