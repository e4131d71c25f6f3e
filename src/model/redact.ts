/**
 * A URL as it may be shown or stored: credentials (`user:password@`) replaced. A URL's authority
 * ends at the first `/`, `\`, `?` or `#`, and its credentials run to the last `@` within it (a
 * password may hold a raw `@`), so the match is greedy but cannot reach into the path or query.
 */
export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\\?#\s]*@/gi, "$1[redacted]@");
}
