/** Code-point order, as Python sorts strings (UTF-8 byte order is code-point order). */
export function byCodePoint(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
