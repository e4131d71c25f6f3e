import { join } from "node:path";
import { NO_SECRETS, type Scrubber } from "../secrets/scrubber.js";
import type { JsonValue } from "./cache-key.js";
import { closeAll, indexPacks, type PackIndex, PackWriter, readEntry } from "./pack-file.js";

/** What a target reads and writes. */
export interface Cache {
  readonly dir: string;
  /** The stored value, or null on a miss (absent, torn or unreadable entry). */
  get(key: string): Promise<unknown>;
  /** Stores the value; a write that fails is counted and reported by flush(), not thrown. */
  set(key: string, value: JsonValue): Promise<void>;
}

/** The cache a run owns. */
export interface RunCache extends Cache {
  /**
   * Closes the run's pack and the files read; from then on get() misses and set() is ignored (a
   * call abandoned by an interrupt may still finish). Returns warnings (none when every write
   * landed): a failed write costs a call next run, not this one, so it is reported, not thrown.
   */
  flush(): Promise<string[]>;
}

/**
 * The answer cache under `dir/packs/` (see pack-file.ts). The packs are indexed on first use, so
 * a run with the cache off never reads them; entries written by this run are indexed as they are
 * appended. Entries other runs append meanwhile are seen by the next run.
 */
export function createCache(dir: string, scrubber: Scrubber = NO_SECRETS): RunCache {
  const packsDir = join(dir, "packs");
  let unreadable = "";
  let index: PackIndex | null = null;
  let closed = false;
  const writer = new PackWriter(packsDir);
  const opened = (): PackIndex => {
    if (index !== null) return index;
    try {
      index = indexPacks(packsDir);
    } catch (error) {
      unreadable ||= error instanceof Error ? error.message : String(error);
      index = { entries: new Map(), fds: [] };
    }
    return index;
  };
  return {
    dir,
    async get(key) {
      if (closed) return null;
      for (let at = opened().entries.get(key); at !== undefined; at = at.earlier) {
        writer.ready(at);
        const value = readEntry(at);
        if (value !== null) return value;
      }
      return null;
    },
    async set(key, value) {
      if (closed) return;
      const entries = opened().entries;
      // An answer that echoes a secret is cached without it, like everything else eb writes.
      const at = writer.append(key, scrubber.scrub(JSON.stringify(value)));
      if (at !== null) entries.set(key, at);
    },
    async flush() {
      closed = true;
      const warnings = [];
      try {
        writer.close();
      } catch (error) {
        warnings.push(`could not close the cache pack under ${packsDir}: ${String(error)}`);
      }
      closeAll(writer.fds.splice(0));
      closeAll(index?.fds.splice(0) ?? []);
      if (unreadable) {
        warnings.push(`could not read the cache under ${dir} (${unreadable}); it was not used`);
      }
      const { count, first } = writer.failures;
      if (count > 0) {
        warnings.push(
          `${count} cache write${count === 1 ? "" : "s"} under ${dir} failed (first: ${first}); ` +
            "those answers will be asked again next run",
        );
      }
      return warnings;
    },
  };
}
