/** A line of a streamed file: its text, or (a line over the limit) its start and its length. */
export type StreamedLine = { text: string } | { head: string; bytes: number };

/** What is kept of a line over the limit: room for the fields that lead it (a custom_id). */
const HEAD_BYTES = 64 * 1024;

/**
 * The lines of a byte stream as they arrive, split at "\n" and decoded as UTF-8. A batch output
 * file can be larger than Node's longest string (~512 MiB), so it is never held whole: memory
 * holds one line, and of a line over `maxBytes` only its first HEAD_BYTES.
 */
export async function* streamedLines(
  chunks: AsyncIterable<Uint8Array>,
  maxBytes: number,
): AsyncGenerator<StreamedLine> {
  const line = new LineBuffer(maxBytes);
  for await (const chunk of chunks) {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    for (let nl = bytes.indexOf(10); nl !== -1; nl = bytes.indexOf(10, start)) {
      line.add(bytes.subarray(start, nl));
      yield line.take();
      start = nl + 1;
    }
    line.add(bytes.subarray(start));
  }
  if (line.bytes > 0) yield line.take();
}

/** The line under way: whole up to the limit, then its head only. */
class LineBuffer {
  bytes = 0;
  private parts: Buffer[] = [];

  constructor(private readonly maxBytes: number) {}

  add(piece: Buffer): void {
    if (piece.length === 0) return;
    this.bytes += piece.length;
    if (this.bytes - piece.length > this.maxBytes) return;
    this.parts.push(piece);
    // A copy: the head alone stays in memory, not the chunks it was cut from.
    if (this.bytes > this.maxBytes)
      this.parts = [Buffer.from(this.joined().subarray(0, HEAD_BYTES))];
  }

  take(): StreamedLine {
    const text = this.joined().toString("utf8");
    const line = this.bytes > this.maxBytes ? { head: text, bytes: this.bytes } : { text };
    this.parts = [];
    this.bytes = 0;
    return line;
  }

  private joined(): Buffer {
    return this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
  }
}
