/**
 * Every value eb knows to be secret (API keys it reads, URL credentials, provider_env values,
 * key-like [harness.env] entries) is replaced by REDACTED in everything eb writes or prints,
 * whatever path the text took: a key echoed by a target on its stderr is as secret as the one in
 * our own error messages. One scrubber per run; every writer and printer applies it.
 */
export const REDACTED = "[redacted]";

/** Shorter values are not treated as secrets: scrubbing "1" would mangle every number. */
const MIN_SECRET_LENGTH = 4;

/**
 * From this many bytes on, a secret's base64 is also looked for inside longer base64 (its core
 * then has 10 characters or more); a shorter core would match random base64 by chance.
 */
const MIN_EMBEDDED_BYTES = 8;

export interface Scrubber {
  /** The text with every known secret (raw, JSON-escaped, URL-encoded, base64) replaced. */
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
    for (const form of base64Forms(secret)) forms.add(form);
  }
  // Longest first, so a secret that contains another is replaced whole.
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return NO_SECRETS;
  const shortest = sorted.at(-1)!.length;
  return {
    scrub: (text) => {
      // Most strings of a report (keys, statuses, ids) are shorter than any secret.
      if (text.length < shortest) return text;
      let out = text;
      for (const form of sorted) if (out.includes(form)) out = out.split(form).join(REDACTED);
      return out;
    },
    longest: sorted[0]!.length,
  };
}

/**
 * The secret in base64, standard and url-safe: encoded alone (padded or not), and inside a longer
 * encoded text (`Basic base64(user:key)`), where what it looks like depends on its offset modulo
 * 3. For each offset, the core is the run of characters made of the secret's bits alone; the one
 * or two characters at either end that share bits with its neighbours stay (at most 4 bits of the
 * secret each). Base64 wrapped over lines is not recognized.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const whole = bytes.toString("base64");
  const forms = [whole, bytes.toString("base64url"), whole.replace(/=+$/, "")];
  forms.push(urlSafe(whole));
  if (bytes.length < MIN_EMBEDDED_BYTES) return forms;
  for (let offset = 0; offset < 3; offset++) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Character i holds bits 6i..6i+5: its own if they all lie within the secret's bytes.
    const core = shifted.slice(
      Math.ceil((offset * 4) / 3),
      Math.floor(((offset + bytes.length) * 4) / 3),
    );
    forms.push(core, urlSafe(core));
  }
  return forms;
}

function urlSafe(base64: string): string {
  return base64.replaceAll("+", "-").replaceAll("/", "_");
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
