import {
  closeSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeSync,
} from "node:fs";

/** Room left on the manifest line so fields known only at the end fit in place. */
const DEFAULT_RESERVE = 160;

/**
 * `rows.jsonl`: the manifest line first, then one line per sample, appended as each finishes (a
 * run killed outright loses at most the rows of its last event-loop turn). At the end the
 * manifest line is rewritten in place with the fields only known then, inside the room reserved.
 */
export class RowWriter<M extends object> {
  private pending: string[] = [];
  private failed: Error | null = null;

  private constructor(
    readonly path: string,
    /** The manifest as it is on disk, rewritten with the closing fields added. */
    private manifest: object,
    private readonly fd: number,
    private readonly manifestLength: number,
    /** Where the next row goes: positions are explicit, so a reopened file appends too. */
    private end: number,
  ) {}

  /** Starts a new rows file with `manifest` and `reserve` bytes of room on its line. */
  static create<M extends object>(path: string, manifest: M, reserve = DEFAULT_RESERVE) {
    const fd = openSync(path, "w");
    const line = Buffer.from(`${JSON.stringify({ manifest })}${" ".repeat(reserve)}\n`);
    const { error } = writeLines(fd, line, 0);
    if (error !== null) {
      // Nothing ran: no rows file is better than one without its manifest.
      closeSync(fd);
      rmSync(path, { force: true });
      throw error;
    }
    return new RowWriter(path, manifest, fd, line.length, line.length);
  }

  /**
   * Reopens a run's rows file to append to it (`--resume`). `accept` gets the first line's
   * manifest (null when there is none) and throws to refuse the file: then nothing is written.
   * Otherwise a last line cut short by a crash is dropped, so every line stays valid JSON, and
   * the manifest is rewritten at the end as it was, plus the closing fields.
   */
  static reopen<M extends object>(
    path: string,
    accept: (manifest: object | null) => M,
  ): { writer: RowWriter<M>; manifest: M } {
    const bytes = readFileSync(path);
    const firstBreak = bytes.indexOf(0x0a);
    const original = firstBreak === -1 ? null : manifestOf(bytes.subarray(0, firstBreak));
    const manifest = accept(original);
    const fd = openSync(path, "r+");
    let end: number;
    try {
      end = keepWholeLines(fd, bytes);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    const writer = new RowWriter<M>(path, original ?? manifest, fd, firstBreak + 1, end);
    return { writer, manifest };
  }

  /**
   * Queues the row; rows finished in one turn of the event loop are written together at its end
   * (a write each cost ~10 µs of a disk's bookkeeping, a tenth of a loopback call).
   */
  append(row: object, scrub: (line: string) => string = (line) => line): void {
    if (this.failed) throw this.failed;
    if (this.pending.length === 0) setImmediate(() => this.flushLater());
    this.pending.push(`${scrub(JSON.stringify(row))}\n`);
  }

  /** Writes the rows queued so far; throws what an earlier write failed with. */
  flush(): void {
    if (this.failed) throw this.failed;
    if (this.pending.length === 0) return;
    const bytes = Buffer.from(this.pending.join(""), "utf8");
    this.pending = [];
    const { kept, error } = writeLines(this.fd, bytes, this.end);
    this.end += kept;
    if (error !== null) throw error;
  }

  /** A failure here has no caller to go to: the next append() or close() throws it. */
  private flushLater(): void {
    try {
      this.flush();
    } catch (error) {
      this.failed ??= error instanceof Error ? error : new Error(String(error));
    }
  }

  /**
   * Closes the file as a crash would leave it: the rows that can still be written are, the
   * manifest line is untouched. Never throws: it runs while another error is on its way out.
   */
  abandon(): void {
    try {
      this.flush();
    } catch {
      // A full disk: what is already on it stays valid, and --resume reruns the rest.
    } finally {
      closeSync(this.fd);
    }
  }

  /** Adds fields to the manifest; returns false (and keeps the old line) if they do not fit. */
  close(extra: Partial<M>): boolean {
    try {
      this.flush();
      this.manifest = { ...this.manifest, ...extra };
      const body = JSON.stringify({ manifest: this.manifest });
      const room = this.manifestLength - 1 - Buffer.byteLength(body);
      if (room >= 0) writeSync(this.fd, `${body}${" ".repeat(room)}\n`, 0);
      return room >= 0;
    } finally {
      closeSync(this.fd);
    }
  }
}

/**
 * Writes `lines` (whole lines) at `position`, in as many writes as a short write takes. When a
 * write fails (a full disk), the file ends after the last whole line that got in, so a row is on
 * disk whole or not at all: `kept` bytes stayed, `error` says why the rest did not.
 */
function writeLines(fd: number, lines: Buffer, position: number): WriteOutcome {
  let done = 0;
  try {
    while (done < lines.length) {
      done += writeSync(fd, lines, done, lines.length - done, position + done);
    }
    return { kept: done, error: null };
  } catch (error) {
    const kept = done === 0 ? 0 : lines.lastIndexOf(0x0a, done - 1) + 1;
    ftruncateSync(fd, position + kept);
    return { kept, error };
  }
}

interface WriteOutcome {
  kept: number;
  error: unknown;
}

/** The `manifest` object on the first line of a rows file (read alone), or null when there is none. */
export function readManifest(path: string): object | null {
  const fd = openSync(path, "r");
  try {
    const chunks: Buffer[] = [];
    for (let position = 0; ; ) {
      const chunk = Buffer.alloc(64 * 1024);
      const read = readSync(fd, chunk, 0, chunk.length, position);
      const lineEnd = chunk.subarray(0, read).indexOf(0x0a);
      chunks.push(chunk.subarray(0, lineEnd === -1 ? read : lineEnd));
      if (lineEnd !== -1) return manifestOf(Buffer.concat(chunks));
      // No newline: a first line cut short, as reopen() sees it too.
      if (read === 0) return null;
      position += read;
    }
  } finally {
    closeSync(fd);
  }
}

/** The `manifest` object of a first line, or null when the line is not one. */
function manifestOf(line: Uint8Array): object | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(line).toString("utf8"));
    if (typeof parsed !== "object" || parsed === null || !("manifest" in parsed)) return null;
    const { manifest } = parsed;
    return typeof manifest === "object" && manifest !== null ? manifest : null;
  } catch {
    return null;
  }
}

/**
 * Ends the file after its last whole line: a last line that parses is a row whose newline a
 * crash cut off (it gets one); one that does not is debris and goes. Returns the new length.
 */
function keepWholeLines(fd: number, bytes: Buffer): number {
  const lastBreak = bytes.lastIndexOf(0x0a) + 1;
  const tail = bytes.subarray(lastBreak);
  if (tail.length > 0 && parses(tail)) {
    writeSync(fd, "\n", bytes.length);
    return bytes.length + 1;
  }
  ftruncateSync(fd, lastBreak);
  return lastBreak;
}

function parses(line: Uint8Array): boolean {
  try {
    JSON.parse(Buffer.from(line).toString("utf8"));
    return true;
  } catch {
    return false;
  }
}
