import { mapStrings } from "./json.js";

/**
 * What a terminal must not be sent from user content (check descriptions, ids, reasons, script
 * output): C0 controls but tab and newline (ESC starts every escape sequence; CR and BS overwrite
 * what was printed), DEL, C1 controls (U+009B is a one-character CSI to some terminals), and the
 * bidirectional controls that make text read other than it runs (CVE-2021-42574).
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** UNSAFE or a newline. */
const NOT_A_SAFE_LINE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * `text` with every unsafe character replaced by something visible: C0 by its Unicode control
 * picture (ESC → ␛), the others by their `\uXXXX` escape. A CRLF ends a line like LF does, so it
 * is printed as one.
 */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(UNSAFE, picture);
}

/**
 * One line of foreign text (an id, a stratum, a grader's name, an endpoint's message) safe to
 * print: terminalSafe, and a newline shown as ␊ too, so that the text never starts a line of
 * eb's output (where GitHub's runner would read it as a workflow command).
 */
export function terminalSafeLine(text: string): string {
  // Nearly every string is safe: one scan finds that, where the replacements take three.
  if (!NOT_A_SAFE_LINE.test(text)) return text;
  return terminalSafe(text).replace(/\n/g, "\u240a");
}

/**
 * JSON text safe to print, and still the same JSON: JSON.stringify escapes C0 but leaves DEL,
 * C1 and bidi controls raw; these occur only inside strings, where `\uXXXX` means the same.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(UNSAFE, unicodeEscape);
}

/**
 * A JSON-like value (a report) with terminalSafeLine applied to every string in it, for text
 * renderers: they join its strings into eb's lines, and add escape sequences (colours) around
 * them, so the text they make cannot be made safe as a whole. Only what changed is copied: a
 * run's document is large and nearly always safe, and copying all of it cost a cached run of
 * 2,000 cases a twentieth of its CPU.
 */
export function terminalSafeStrings<T>(value: T): T {
  return mapStrings(value, terminalSafeLine);
}

function picture(char: string): string {
  const code = char.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  return code === 0x7f ? "\u2421" : unicodeEscape(char);
}

/** `\uXXXX` for one UTF-16 unit. */
export function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * GitHub's runner reads each line a step prints (CR or LF ends one) for a workflow command:
 * `::name …::` at its start, after blanks (the runner trims what .NET counts as white space),
 * and the legacy `##[name]` anywhere in it. Both can mask secrets, stop the command processing
 * of the rest of the step or raise annotations.
 */
const LEADING_COLON = /([\r\n](?:[^\S\r\n]|\u0085)*):/g;
const LEGACY_COMMAND = /##\[/g;
const BLANK = /^(?:[^\S\r\n]|\u0085)*$/;

/**
 * A filter for everything eb writes to stdout or stderr: no line it lets through holds a
 * workflow command. A colon that starts a line becomes `\u003a` (eb's own lines never start
 * with one) and the `[` of `##[` becomes `\u005b`: visible escapes, as terminalSafe's, that also
 * mean the same inside a JSON string, so `--json` output stays the same JSON. Nothing else
 * changes. It keeps state between calls, as a line may arrive in several writes; eb's own
 * annotations are written around it (`lineStart`).
 */
export class CommandGuard {
  /** Only blanks since the last line ended: a colon now would start the line. */
  private blankLine = true;
  /** `#`s that ended the text so far (0 to 2): a `[` now would complete `##[`. */
  private hashes = 0;

  filter(text: string): string {
    if (text === "") return text;
    // The text with what it continues of the line before, so both patterns see across writes.
    const prefix = this.blankLine ? "\n" : "#".repeat(this.hashes);
    const joined = prefix + text;
    const lastBreak = Math.max(joined.lastIndexOf("\n"), joined.lastIndexOf("\r"));
    this.blankLine = lastBreak >= 0 && BLANK.test(joined.slice(lastBreak + 1));
    this.hashes = joined.endsWith("##") ? 2 : joined.endsWith("#") ? 1 : 0;
    return joined
      .replace(LEADING_COLON, "$1\\u003a")
      .replace(LEGACY_COMMAND, "##\\u005b")
      .slice(prefix.length);
  }

  /** After a line written around the filter (an annotation): the next text starts a line. */
  lineStart(): void {
    this.blankLine = true;
    this.hashes = 0;
  }
}
