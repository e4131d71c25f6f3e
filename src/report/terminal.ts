/**
 * What a terminal must not be sent from user content (check descriptions, ids, reasons, script
 * output): C0 controls but tab and newline (ESC starts every escape sequence; CR and BS overwrite
 * what was printed), DEL, C1 controls (U+009B is a one-character CSI to some terminals), and the
 * bidirectional controls that make text read other than it runs (CVE-2021-42574).
 */
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every unsafe character replaced by something visible: C0 by its Unicode control
 * picture (ESC → ␛), the others by their `\uXXXX` escape. A CRLF ends a line like LF does, so it
 * is printed as one.
 */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(UNSAFE, picture);
}

/**
 * JSON text safe to print, and still the same JSON: JSON.stringify escapes C0 but leaves DEL,
 * C1 and bidi controls raw; these occur only inside strings, where `\uXXXX` means the same.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(UNSAFE, unicodeEscape);
}

/**
 * A copy of a JSON-like value (a report) with terminalSafe applied to every string in it, for
 * output that adds its own escape sequences (colours) around user content and so cannot be
 * made safe as a whole.
 */
export function terminalSafeStrings<T>(value: T): T {
  return safeValue(value) as T;
}

function safeValue(value: unknown): unknown {
  if (typeof value === "string") return terminalSafe(value);
  if (Array.isArray(value)) return value.map(safeValue);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, safeValue(inner)]));
}

/** Only what JSON.parse could have made: a Date or a buffer is not rebuilt from its entries. */
function isPlainObject(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
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
