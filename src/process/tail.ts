/**
 * The last `keepChars` characters of a byte stream, in bounded memory. Keeps at most
 * 4 bytes per character (the UTF-8 maximum) plus one chunk, and decodes only on demand.
 */
export class Tail {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Characters seen in the whole stream (UTF-8 lead bytes). */
  chars = 0;

  constructor(private readonly keepChars: number) {}

  push(chunk: Buffer): void {
    this.chars += countLeadBytes(chunk);
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    const limit = this.keepChars * 4;
    while (this.chunks.length > 1 && this.bytes - this.chunks[0]!.length >= limit) {
      this.bytes -= this.chunks.shift()!.length;
    }
  }

  get truncated(): boolean {
    return this.chars > this.keepChars;
  }

  text(): string {
    const decoded = Buffer.concat(this.chunks).toString("utf8");
    if (!this.truncated) return decoded;
    return lastCodePoints(decoded, this.keepChars);
  }
}

function countLeadBytes(chunk: Buffer): number {
  let count = 0;
  for (const byte of chunk) if ((byte & 0xc0) !== 0x80) count++;
  return count;
}

/**
 * The last `count` characters (code points, so no surrogate pair is cut in half). Walks back
 * from the end: no array of characters, since the text can be megabytes long.
 */
export function lastCodePoints(text: string, count: number): string {
  let start = text.length;
  for (let seen = 0; seen < count && start > 0; seen++) {
    const pair = start >= 2 && isLowSurrogate(text, start - 1) && isHighSurrogate(text, start - 2);
    start -= pair ? 2 : 1;
  }
  return text.slice(start);
}

export function isHighSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The last non-blank line of captured output, trimmed (what usually says why it failed). */
export function lastLine(text: string): string | null {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return lines.at(-1)?.trim() ?? null;
}
