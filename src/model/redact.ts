/** A URL as it may be shown or stored: credentials (`user:password@`) replaced. */
export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, "$1[redacted]@");
}
