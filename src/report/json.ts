/** The value of a JSON text, or null when it is not JSON: for files eb reads but did not check. */
export function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
