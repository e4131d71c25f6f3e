import { constants } from "node:buffer";
import { open } from "node:fs/promises";
import { InputError } from "../errors.js";

/**
 * The longest line read. Node cannot hold a longer one as one string, so no program (eb included)
 * wrote it as one row, and reading on would only fill memory.
 */
export const MAX_LINE_BYTES = constants.MAX_STRING_LENGTH;

/** A line's text (without its "\n"), its number from 1, and whether a "\n" ended it. */
export type LineVisitor = (text: string, line: number, ended: boolean) => void;

/** Bytes read at a time. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Bytes decoded into one string at a time, cut at a line's end. A string over V8's largest
 * regular object (128 KiB; a UTF-16 string takes two bytes a character) is allocated on pages of
 * its own, and the chunks of 500,000 rows decoded whole cost more than parsing them (bench/stats).
 */
const DECODE_BYTES = 32 * 1024;

/**
 * Calls `visit` with every line of `file`, cut from bytes as they are read: memory holds one
 * line at most, and a line over MAX_LINE_BYTES is refused as soon as it gets there. Two buffers
 * take turns, used again and again (a fresh buffer per read, as a read stream makes, costs more
 * than the lines it holds): the next chunk is read while this one is cut.
 */
export async function forEachLineOf(file: string, visit: LineVisitor): Promise<void> {
  const splitter = new LineSplitter(file, visit);
  const handle = await open(file).catch(cannotRead(file));
  const buffers = [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)] as const;
  const read = (buffer: Buffer) =>
    handle.read(buffer, 0, CHUNK_BYTES, null).then(({ bytesRead }) => bytesRead, cannotRead(file));
  let next = read(buffers[0]);
  try {
    for (let turn = 1; ; turn++) {
      const bytes = await next;
      if (bytes === 0) break;
      next = read(buffers[turn % 2]!);
      splitter.push(buffers[(turn + 1) % 2]!, bytes);
    }
  } finally {
    // A bad line stops the loop with a read under way: it ends (its error unheard) before close.
    await next.catch(() => 0);
    await handle.close();
  }
  splitter.end();
}

function cannotRead(file: string): (error: unknown) => never {
  return (error) => {
    if (!isSystemError(error)) throw error;
    throw new InputError(
      `${file}: cannot read the rows file (${error.code}) — check the path and its permissions`,
    );
  };
}

class LineSplitter {
  /** The start of the line under way, copied from earlier chunks (the buffer is read into again). */
  private parts: Buffer[] = [];
  private size = 0;
  private line = 1;

  constructor(
    private readonly file: string,
    private readonly visit: LineVisitor,
  ) {}

  /** The lines ended in `chunk[0, length)`; the start of the next one is kept. */
  push(chunk: Buffer, length: number): void {
    const last = chunk.lastIndexOf(10, length - 1);
    if (last === -1) {
      this.keep(chunk, 0, length);
      return;
    }
    let start = 0;
    if (this.parts.length > 0) {
      const first = chunk.indexOf(10);
      this.emit(chunk, first, true);
      start = first + 1;
    }
    // Whole lines decoded a piece at a time, then cut: a "\n" byte never occurs inside a
    // multi-byte UTF-8 character, so each line decodes as it would alone.
    for (let piece = start; piece <= last; ) {
      const end = pieceEnd(chunk, piece, last);
      this.lines(chunk.toString("utf8", piece, end));
      piece = end;
    }
    if (last + 1 < length) this.keep(chunk, last + 1, length);
  }

  /** Each line of `text`, which ends with a "\n". */
  private lines(text: string): void {
    let from = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
      this.visit(text.slice(from, nl), this.line++, true);
      from = nl + 1;
    }
  }

  end(): void {
    if (this.size > 0) this.emit(Buffer.alloc(0), 0, false);
  }

  /** Emits the line made of the parts kept so far and `chunk[0, end)`. */
  private emit(chunk: Buffer, end: number, ended: boolean): void {
    this.grow(end);
    const text = Buffer.concat([...this.parts, chunk.subarray(0, end)]).toString("utf8");
    this.parts = [];
    this.size = 0;
    this.visit(text, this.line++, ended);
  }

  private keep(chunk: Buffer, start: number, end: number): void {
    this.grow(end - start);
    this.parts.push(Buffer.from(chunk.subarray(start, end)));
  }

  private grow(bytes: number): void {
    this.size += bytes;
    if (this.size <= MAX_LINE_BYTES) return;
    throw new InputError(
      `${this.file}:${this.line}: the line is over ${Math.round(MAX_LINE_BYTES / 2 ** 20)} MB, longer than any row can be — this is not a rows file, or the line is damaged: remove it`,
    );
  }
}

/**
 * Where the piece of whole lines from `start` ends: after the last "\n" within DECODE_BYTES, or
 * after the first one past them when a line is longer. `last` is the chunk's last "\n".
 */
function pieceEnd(chunk: Buffer, start: number, last: number): number {
  if (last < start + DECODE_BYTES) return last + 1;
  const within = chunk.lastIndexOf(10, start + DECODE_BYTES - 1);
  return within >= start ? within + 1 : chunk.indexOf(10, start) + 1;
}

function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string";
}
