/**
 * A URL's credentials (`user:password@`). A URL's authority ends at the first `/`, `\`, `?` or
 * `#`, and its credentials run to the last `@` within it (a password may hold a raw `@`), so the
 * match is greedy but cannot reach into the path or query.
 */
const CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)([^/\\?#\s]*)@/gi;

/** A URL as it may be shown or stored: credentials replaced. */
export function redactUrl(text: string): string {
  return text.replace(CREDENTIALS, "$1[redacted]@");
}

/** The credentials part of a URL (`user:password`, or a bare `token`), or null when it has none. */
export function urlUserinfo(url: string): string | null {
  const match = new RegExp(CREDENTIALS.source, "i").exec(url);
  return match ? match[2]! : null;
}
