import { randomBytes } from "node:crypto";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { parseJsonOrNull } from "../report/json.js";

/**
 * The answer cache lives in append-only pack files, one line an entry: `<sha256 key> <JSON>\n`.
 * A file per entry cost 0.3–0.8 ms of kernel time to create on the disks measured here, more than
 * the loopback call it saved; an append costs microseconds. Each process appends to a pack of its
 * own (`.open`), so lines never interleave; a killed process leaves at most a torn last line,
 * which has no newline and is skipped. A run renames its pack `.pack` when it closes the cache.
 *
 * One file, though long: reading, writing and merging packs must agree on the same byte layout
 * and the same rules for torn lines, and each alone would hide half of that contract.
 */

/** Where one entry's JSON lies in a pack; fd stays open, so a pack removed by another run still reads. */
export interface Location {
  fd: number;
  start: number;
  end: number;
  /** The pack's bytes as read when it was indexed, when kept (see KEPT_PACK_BYTES). */
  bytes?: Buffer;
  /** The same key met earlier in the packs: read when this copy turns out damaged. */
  earlier?: Location;
}

const KEY_LENGTH = 64;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const OPEN = ".open";
const CLOSED = ".pack";
const TEMP = ".tmp";
/** More closed packs than this are merged into one, so opening a cache stays a few reads. */
const MAX_CLOSED_PACKS = 8;
/** An open pack untouched this long belongs to a run that died: it may be merged. */
const STALE_MS = 24 * 60 * 60 * 1000;
/** Another run may merge packs between our listing and our open: list again, this many times. */
const LIST_ATTEMPTS = 3;
/**
 * A pack up to this size is kept in memory once indexed (it was read whole to index it), and its
 * entries are read from there: a read from the file each cost a cached run of 6000 samples a
 * tenth of its time. A larger pack is read entry by entry, as it would not fit a small machine.
 */
const KEPT_PACK_BYTES = 64 * 1024 * 1024;

/** Every entry of the packs in a folder, and the files held open to read them. */
export interface PackIndex {
  entries: Map<string, Location>;
  fds: number[];
}

/**
 * Indexes every pack in `dir` (a missing folder has none), merging them first if too many.
 * Other runs rename and merge packs meanwhile: a pack gone since the listing is looked for
 * under its closed name, then in a new listing; what was read already is kept.
 */
export function indexPacks(dir: string): PackIndex {
  compact(dir);
  const index: PackIndex = { entries: new Map(), fds: [] };
  const read = new Set<string>();
  for (let attempt = 1; attempt <= LIST_ATTEMPTS; attempt++) {
    let missed = false;
    for (const name of packNames(dir)) {
      const stem = name.slice(0, name.lastIndexOf("."));
      if (read.has(stem)) continue;
      const fd = openPack(dir, name);
      if (fd === null) {
        missed = true;
        continue;
      }
      read.add(stem);
      index.fds.push(fd);
      const whole = readWhole(fd);
      const bytes = whole.length <= KEPT_PACK_BYTES ? whole : undefined;
      scanEntries(whole, (key, start, end) => {
        index.entries.set(key, { fd, start, end, bytes, earlier: index.entries.get(key) });
      });
    }
    if (!missed) break;
  }
  return index;
}

/** Opens a pack to read, or its closed self if it was closed since; null when it is gone. */
function openPack(dir: string, name: string): number | null {
  const names = name.endsWith(OPEN) ? [name, name.slice(0, -OPEN.length) + CLOSED] : [name];
  for (const candidate of names) {
    try {
      return openSync(join(dir, candidate), "r");
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  return null;
}

export function closeAll(fds: readonly number[]): void {
  for (const fd of fds) closeSync(fd);
}

/** Calls `onEntry` for every whole line of `bytes` that starts with a key and a space. */
function scanEntries(
  bytes: Buffer,
  onEntry: (key: string, start: number, end: number) => void,
): void {
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(NEWLINE, start);
    if (end < 0) return;
    if (end - start > KEY_LENGTH + 1 && bytes[start + KEY_LENGTH] === SPACE) {
      onEntry(bytes.toString("latin1", start, start + KEY_LENGTH), start + KEY_LENGTH + 1, end);
    }
    start = end + 1;
  }
}

/** The entry's JSON parsed, or null when it no longer reads as JSON. */
export function readEntry(at: Location): unknown {
  if (at.bytes !== undefined) return parseJsonOrNull(at.bytes.toString("utf8", at.start, at.end));
  const bytes = Buffer.allocUnsafe(at.end - at.start);
  try {
    if (readSync(at.fd, bytes, 0, bytes.length, at.start) !== bytes.length) return null;
  } catch {
    return null;
  }
  return parseJsonOrNull(bytes.toString("utf8"));
}

/** The names in `dir`; none when it does not exist (yet) or is not a folder. */
function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if (isMissing(error) || (error as NodeJS.ErrnoException).code === "ENOTDIR") return [];
    throw error;
  }
}

/** The pack names in `dir`, oldest first (names start with the time), so later entries win. */
function packNames(dir: string): string[] {
  return listDir(dir)
    .filter((n) => n.endsWith(OPEN) || n.endsWith(CLOSED))
    .sort();
}

/**
 * Merges the closed (and stale open) packs into one once there are too many. Best effort: a
 * cache that cannot be merged (read-only, full disk) is still read as it is.
 */
function compact(dir: string): void {
  try {
    merge(dir);
  } catch {
    // The packs are intact: the merged file is only renamed into place once whole.
  }
}

function merge(dir: string): void {
  const now = Date.now();
  // What a merge that died left behind.
  for (const name of listDir(dir).filter((n) => n.endsWith(TEMP))) {
    if (now - (statOf(join(dir, name))?.mtimeMs ?? now) > STALE_MS) rmSync(join(dir, name));
  }
  const done = packNames(dir).flatMap((name) => {
    const stat = statOf(join(dir, name));
    const finished = stat !== null && (name.endsWith(CLOSED) || now - stat.mtimeMs > STALE_MS);
    return finished ? [{ name, size: stat.size }] : [];
  });
  if (done.length <= MAX_CLOSED_PACKS) return;
  const victims = toMerge(done);
  const lines = new Map<string, Buffer>();
  for (const name of victims) {
    const bytes = readIfPresent(join(dir, name));
    scanEntries(bytes, (key, start, end) => {
      // A damaged entry is dropped here: carried into the newest pack, it would hide a good one.
      if (parses(bytes.toString("utf8", start, end))) {
        lines.set(key, bytes.subarray(start - KEY_LENGTH - 1, end + 1));
      }
    });
  }
  writeWhole(join(dir, packName(CLOSED)), Buffer.concat([...lines.values()]));
  for (const name of victims) rmSync(join(dir, name), { force: true });
}

/**
 * All the packs, or all but the largest when it outweighs the rest together: the bulk of a big
 * cache is rewritten only once the small packs have grown as large, not at every merge.
 * Names stay in age order, so a later entry still wins.
 */
function toMerge(packs: readonly { name: string; size: number }[]): string[] {
  const largest = packs.reduce((a, b) => (b.size > a.size ? b : a));
  const rest = packs.filter((p) => p !== largest);
  const restSize = rest.reduce((sum, p) => sum + p.size, 0);
  return (largest.size > restSize ? rest : packs).map((p) => p.name);
}

/** What did not reach the disk: how many entries, and the first reason. */
export interface WriteFailures {
  count: number;
  first: string;
}

/**
 * One process's pack. Entries appended in one turn of the event loop are written together at its
 * end: one write for a burst of answers instead of one each.
 */
export class PackWriter {
  /** Every pack this writer opened, kept open for reading until the owner closes them. */
  readonly fds: number[] = [];
  readonly failures: WriteFailures = { count: 0, first: "" };
  private fd: number | null = null;
  private path = "";
  /** Bytes appended to the current pack, queued ones included. */
  private size = 0;
  /** Bytes of the current pack on disk. */
  private written = 0;
  private queued: Buffer[] = [];

  constructor(private readonly dir: string) {}

  /** Queues the entry; returns where it will be, or null when no pack can be opened. */
  append(key: string, json: string): Location | null {
    const fd = this.opened();
    if (fd === null) return null;
    const line = Buffer.from(`${key} ${json}\n`, "utf8");
    if (this.queued.length === 0) setImmediate(() => this.flush());
    this.queued.push(line);
    const start = this.size + KEY_LENGTH + 1;
    this.size += line.length;
    return { fd, start, end: this.size - 1 };
  }

  /** Makes an entry of this writer's readable: one still queued is written now. */
  ready(at: Location): void {
    if (at.fd === this.fd && at.end > this.written) this.flush();
  }

  /**
   * Writes what is queued. A write that fails part-way may leave part of a line that later lines
   * would join, so the pack is given up as it is (its torn tail is skipped by readers) and the
   * next append starts another.
   */
  flush(): void {
    if (this.fd === null || this.queued.length === 0) return;
    const batch = Buffer.concat(this.queued);
    const count = this.queued.length;
    this.queued = [];
    try {
      writeAll(this.fd, batch);
      this.written += batch.length;
    } catch (error) {
      this.failed(count, error);
      this.giveUp();
    }
  }

  /**
   * Writes what is queued and marks the pack done (`.open` → `.pack`); its fd stays readable for
   * the entries indexed. A cache folder removed meanwhile (cleared by hand) gets the pack back
   * from the open file.
   */
  close(): void {
    this.flush();
    const fd = this.fd;
    if (fd === null) return;
    this.fd = null;
    const closed = this.path.slice(0, -OPEN.length) + CLOSED;
    try {
      renameSync(this.path, closed);
    } catch (error) {
      if (!isMissing(error)) throw error;
      mkdirSync(this.dir, { recursive: true });
      writeWhole(closed, readWhole(fd));
    }
  }

  private giveUp(): void {
    try {
      this.close();
    } catch {
      // The pack stays `.open`; readers skip its torn tail, and it is merged once stale.
    }
  }

  private opened(): number | null {
    if (this.fd !== null) return this.fd;
    try {
      mkdirSync(this.dir, { recursive: true });
      this.path = join(this.dir, packName(OPEN));
      this.fd = openSync(this.path, "ax+");
    } catch (error) {
      this.failed(1, error);
      return null;
    }
    this.fds.push(this.fd);
    this.size = 0;
    this.written = 0;
    return this.fd;
  }

  private failed(count: number, error: unknown): void {
    this.failures.count += count;
    this.failures.first ||= error instanceof Error ? error.message : String(error);
  }
}

/** Writes a file that appears whole or not at all (temp file, then rename). */
function writeWhole(path: string, bytes: Buffer): void {
  const temp = `${path}${TEMP}`;
  try {
    writeFileSync(temp, bytes);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) {
    done += writeSync(fd, bytes, done, bytes.length - done);
  }
}

/**
 * `<UTC time>-<host>-<pid>-<random><suffix>`: sorted by age, and unique across processes and
 * machines, so the cache folders of several CI machines (whose pids are alike) copy into one
 * without a pack overwriting another.
 */
function packName(suffix: string): string {
  const time = new Date().toISOString().replace(/[-:.]/g, "");
  return `${time}-${HOST}-${process.pid}-${randomBytes(4).toString("hex")}${suffix}`;
}

/** The machine's name as a file name can hold it (no "-", the names' separator). */
const HOST =
  hostname()
    .replace(/[^A-Za-z0-9]/g, "_")
    .slice(0, 32) || "host";

function readWhole(fd: number): Buffer {
  const bytes = Buffer.allocUnsafe(fstatSync(fd).size);
  let done = 0;
  while (done < bytes.length) {
    const read = readSync(fd, bytes, done, bytes.length - done, done);
    if (read === 0) break;
    done += read;
  }
  return bytes.subarray(0, done);
}

function readIfPresent(path: string): Buffer {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if (isMissing(error)) return Buffer.alloc(0);
    throw error;
  }
  try {
    return readWhole(fd);
  } finally {
    closeSync(fd);
  }
}

function parses(json: string): boolean {
  try {
    JSON.parse(json);
    return true;
  } catch {
    return false;
  }
}

function statOf(path: string): { size: number; mtimeMs: number } | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === "ENOENT";
}
