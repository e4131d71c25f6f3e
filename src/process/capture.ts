import { createWriteStream, type WriteStream } from "node:fs";
import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { StringDecoder } from "node:string_decoder";
import { getSystemErrorMap } from "node:util";
import { type Scrubber, scrubStream } from "../secrets/scrubber.js";
import { isHighSurrogate, Tail } from "./tail.js";

/**
 * One output stream: the full bytes to a file (opened lazily), a bounded tail in memory, both
 * scrubbed of secrets when a scrubber is given. A file that cannot be written never stops the
 * capture: it keeps what was written, the tail goes on, and `writeError` says why.
 */
export class Capture {
  readonly tail: Tail;
  /** "could not write <path>: ENOSPC (no space left on device)", or null. */
  writeError: string | null = null;
  private file: WriteStream | undefined;
  private source: Readable | undefined;
  private readonly scrub: ByteScrub | undefined;
  private lastData = performance.now();
  private paused = false;

  constructor(
    keepChars: number,
    private readonly path: string | undefined,
    scrubber: Scrubber | undefined,
  ) {
    this.tail = new Tail(keepChars);
    // Without secrets the bytes stay as they are, invalid UTF-8 included.
    if (scrubber && scrubber.longest > 0) this.scrub = scrubBytes(scrubber);
  }

  /** True while data still flows (or waits for the file) within the last `idleMs`. */
  busy(idleMs: number): boolean {
    return this.paused || performance.now() - this.lastData < idleMs;
  }

  /** Reads the stream; pauses it while the file lags, so memory stays bounded. */
  attach(stream: Readable): void {
    this.source = stream;
    stream.on("data", (chunk: Buffer) => {
      this.lastData = performance.now();
      this.keep(this.scrub ? this.scrub.push(chunk) : chunk);
    });
  }

  /** Flushes what the scrubber still holds back, then closes the file. */
  async close(): Promise<void> {
    if (this.scrub) this.keep(this.scrub.end());
    const file = this.file;
    if (!file || this.writeError !== null) return;
    file.end();
    // A failing last flush is reported by the error listener; nothing to throw here.
    await finished(file).catch(() => {});
  }

  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.tail.push(bytes);
    if (!this.path || this.writeError !== null) return;
    this.file ??= this.open(this.path);
    if (this.file.write(bytes)) return;
    this.source?.pause();
    this.paused = true;
    this.file.once("drain", this.resume);
  }

  private open(path: string): WriteStream {
    const file = createWriteStream(path);
    file.on("error", (error) => {
      this.writeError ??= `could not write ${path}: ${describe(error)}`;
      // A failed stream never drains: read on, into the tail only.
      this.resume();
    });
    return file;
  }

  private readonly resume = (): void => {
    if (!this.paused) return;
    this.paused = false;
    this.lastData = performance.now();
    this.source?.resume();
  };
}

/** "ENOSPC (no space left on device)"; the message itself when the code is unknown. */
function describe(error: NodeJS.ErrnoException): string {
  const known = error.errno === undefined ? undefined : getSystemErrorMap().get(error.errno);
  return known ? `${known[0]} (${known[1]})` : error.message;
}

interface ByteScrub {
  push(chunk: Buffer): Buffer;
  end(): Buffer;
}

/**
 * Scrubs a byte stream as UTF-8 text (so invalid bytes become U+FFFD) and gives back UTF-8.
 * The decoder keeps a character split across chunks whole; scrubStream a secret split across
 * them. Its held-back text may start inside a surrogate pair, so a trailing high surrogate waits
 * for the next piece rather than being encoded alone.
 */
function scrubBytes(scrubber: Scrubber): ByteScrub {
  const decoder = new StringDecoder("utf8");
  const stream = scrubStream(scrubber);
  let carry = "";
  const encode = (text: string): Buffer => {
    const whole = carry + text;
    const cut = isHighSurrogate(whole, whole.length - 1) ? whole.length - 1 : whole.length;
    carry = whole.slice(cut);
    return Buffer.from(whole.slice(0, cut), "utf8");
  };
  return {
    push: (chunk) => encode(stream.push(decoder.write(chunk))),
    // The rest of the stream: nothing is left to pair the carry with.
    end: () => Buffer.from(carry + stream.push(decoder.end()) + stream.end(), "utf8"),
  };
}
