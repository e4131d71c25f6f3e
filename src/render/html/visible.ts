import { unicodeEscape } from "../../report/terminal.js";

/**
 * Characters that change how the text around them reads while showing nothing themselves: the
 * bidi controls of "Trojan Source" (U+202A–U+202E, U+2066–U+2069, the marks U+200E, U+200F,
 * U+061C), zero-width ones, the line and paragraph separators, and the C0/C1 controls but tab,
 * newline and a carriage return before a newline. Written as a string: a literal would hold
 * the very characters it is about.
 */
const INVISIBLE = new RegExp(
  "[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\u061c\\u200b-\\u200f" +
    "\\u2028-\\u202e\\u2060-\\u2069\\ufeff]|\\r(?!\\n)",
  "g",
);

/** The text with every invisible control written as its `\u202e` escape, so a reader sees it. */
export function visible(text: string): string {
  return text.replace(INVISIBLE, unicodeEscape);
}
