/**
 * Every value eb knows to be secret (API keys it reads, URL credentials, provider_env values,
 * key-like [harness.env] entries) is replaced by REDACTED in everything eb writes or prints,
 * whatever path the text took: a key echoed by a target on its stderr is as secret as the one in
 * our own error messages. One scrubber per run; every writer and printer applies it.
 */
export const REDACTED = "[redacted]";

/** Shorter values are not treated as secrets: scrubbing "1" would mangle every number. */
const MIN_SECRET_LENGTH = 4;

export interface Scrubber {
  /** The text with every known secret (raw, or as JSON escapes it) replaced. */
  scrub(text: string): string;
  /** Length of the longest form of a secret, for scrubbing a stream across chunk edges. */
  readonly longest: number;
}

export function createScrubber(secrets: Iterable<string | null | undefined>): Scrubber {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) continue;
    forms.add(secret);
    // Rows and reports are JSON: a secret with quotes or backslashes is written escaped.
    forms.add(JSON.stringify(secret).slice(1, -1));
    forms.add(encodeURIComponent(secret));
  }
  // Longest first, so a secret that contains another is replaced whole.
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return NO_SECRETS;
  return {
    scrub: (text) => {
      let out = text;
      for (const form of sorted) if (out.includes(form)) out = out.split(form).join(REDACTED);
      return out;
    },
    longest: sorted[0]!.length,
  };
}

export const NO_SECRETS: Scrubber = { scrub: (text) => text, longest: 0 };

/**
 * Scrubs a stream chunk by chunk: it holds back the last `longest - 1` characters of each chunk
 * until the next one arrives, so a secret split across two chunks is still found.
 */
export function scrubStream(scrubber: Scrubber): { push(chunk: string): string; end(): string } {
  if (scrubber.longest === 0) return { push: (chunk) => chunk, end: () => "" };
  const hold = scrubber.longest - 1;
  let pending = "";
  return {
    push(chunk) {
      const text = scrubber.scrub(pending + chunk);
      if (text.length <= hold) {
        pending = text;
        return "";
      }
      pending = text.slice(text.length - hold);
      return text.slice(0, text.length - hold);
    },
    end() {
      const rest = pending;
      pending = "";
      return rest;
    },
  };
}
