/**
 * Code-point order, as Python sorts strings (UTF-8 byte order is code-point order). Not
 * `a < b`, which compares UTF-16 code units and puts U+FF61 after U+1F600.
 */
export function byCodePoint(a: string, b: string): number {
  for (let i = 0; i < a.length && i < b.length; ) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
  }
  return Math.sign(a.length - b.length);
}
