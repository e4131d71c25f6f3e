import { join } from "node:path";
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
   * Closes the run's pack and the files read. Returns warnings (none when every write landed): a
   * failed write costs a call next run, not this one, so it is reported rather than thrown.
   */
  flush(): Promise<string[]>;
}

/**
 * The answer cache under `dir/packs/` (see pack-file.ts). The packs are indexed on the first
 * read, so a run that only writes never reads them; entries written by this run are indexed as
 * they are appended. Entries other runs append meanwhile are seen by the next run.
 */
export function createCache(dir: string): RunCache {
  const packsDir = join(dir, "packs");
  const failures = { count: 0, first: "", reading: "" };
  let index: PackIndex | null = null;
  let writer = new PackWriter(packsDir);
  const opened = (): PackIndex => {
    if (index !== null) return index;
    try {
      index = indexPacks(packsDir);
    } catch (error) {
      failures.reading ||= reason(error);
      index = { entries: new Map(), fds: [] };
    }
    return index;
  };
  return {
    dir,
    async get(key) {
      const at = opened().entries.get(key);
      return at === undefined ? null : readEntry(at);
    },
    async set(key, value) {
      const entries = opened().entries;
      try {
        entries.set(key, writer.append(key, JSON.stringify(value)));
      } catch (error) {
        failures.count++;
        failures.first ||= reason(error);
      }
    },
    async flush() {
      const warnings = [];
      try {
        writer.close();
      } catch (error) {
        warnings.push(`could not close the cache pack under ${packsDir}: ${reason(error)}`);
      }
      closeAll(writer.fds);
      closeAll(index?.fds ?? []);
      writer = new PackWriter(packsDir);
      index = null;
      if (failures.reading) {
        warnings.push(
          `could not read the cache under ${dir} (${failures.reading}); it was not used`,
        );
      }
      if (failures.count > 0) {
        const { count, first } = failures;
        warnings.push(
          `${count} cache write${count === 1 ? "" : "s"} under ${dir} failed (first: ${first}); ` +
            "those answers will be asked again next run",
        );
      }
      return warnings;
    },
  };
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
