import { constants } from "node:buffer";
import { createReadStream } from "node:fs";
import { InputError } from "../errors.js";

/**
 * The longest line read. Node cannot hold a longer one as one string, so no program (eb included)
 * wrote it as one row, and reading on would only fill memory.
 */
export const MAX_LINE_BYTES = constants.MAX_STRING_LENGTH;

/** A line's text (without its "\n"), its number from 1, and whether a "\n" ended it. */
export type LineVisitor = (text: string, line: number, ended: boolean) => void;

/**
 * Calls `visit` with every line of `file`, cut from bytes as they stream past: memory holds one
 * line at most, and a line over MAX_LINE_BYTES is refused as soon as it gets there.
 */
export async function forEachLineOf(file: string, visit: LineVisitor): Promise<void> {
  const splitter = new LineSplitter(file, visit);
  try {
    for await (const chunk of createReadStream(file)) {
      splitter.push(chunk as Buffer);
    }
  } catch (error) {
    if (!isSystemError(error)) throw error;
    throw new InputError(
      `${file}: cannot read the rows file (${error.code}) — check the path and its permissions`,
    );
  }
  splitter.end();
}

class LineSplitter {
  /** The start of the line under way, from earlier chunks. */
  private parts: Buffer[] = [];
  private size = 0;
  private line = 1;

  constructor(
    private readonly file: string,
    private readonly visit: LineVisitor,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.emit(chunk, start, nl, true);
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.grow(rest.length);
      this.parts.push(rest);
    }
  }

  end(): void {
    if (this.size > 0) this.emit(Buffer.alloc(0), 0, 0, false);
  }

  /** Emits the line made of the parts kept so far and `chunk[start, end)`. */
  private emit(chunk: Buffer, start: number, end: number, ended: boolean): void {
    this.grow(end - start);
    // Most lines lie within one chunk: decoded in place, without a copy or a Buffer per line.
    const text =
      this.parts.length === 0
        ? chunk.toString("utf8", start, end)
        : Buffer.concat([...this.parts, chunk.subarray(start, end)]).toString("utf8");
    if (this.parts.length > 0) this.parts = [];
    this.size = 0;
    this.visit(text, this.line++, ended);
  }

  private grow(bytes: number): void {
    this.size += bytes;
    if (this.size <= MAX_LINE_BYTES) return;
    throw new InputError(
      `${this.file}:${this.line}: the line is over ${Math.round(MAX_LINE_BYTES / 2 ** 20)} MB, longer than any row can be — this is not a rows file, or the line is damaged: remove it`,
    );
  }
}

function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string";
}
