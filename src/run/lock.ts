import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { InputError } from "../errors.js";
import { cannotStart, errorCode } from "./fs-errors.js";

/** In the run folder while a run writes it; gone when the run ends, left behind by a crash. */
export const LOCK_FILE = ".eval-banana.lock";

/** A held lock; release it once the run has written its last byte. */
export interface RunLock {
  release(): void;
}

/**
 * Makes this process the run folder's one writer: an exclusive create of the lock file holding
 * our pid. A lock whose process is gone (a crashed or killed run) is taken over; a live one is
 * refused, naming its pid, so two runs never write one rows.jsonl.
 */
export function lockRunFolder(runDir: string): RunLock {
  const file = path.join(runDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createWithPid(file)) return { release: () => removeFile(file) };
    const holder = holderOf(file);
    if (holder !== null && isAlive(holder)) {
      throw new InputError(
        `${runDir} is being written by another eb (pid ${holder}); wait for it to end, or pick another output folder.`,
      );
    }
    // Stale: its writer is gone. Remove it and try once more (a racing taker wins either way).
    removeFile(file);
  }
  throw new InputError(`${runDir}: another eb took the run folder's lock at the same moment.`);
}

/**
 * Creates the lock file with our pid already in it: written beside it, then hard-linked into
 * place, which fails if it exists. A reader never sees a lock without its pid. A folder that
 * cannot take it (a full disk) is a one-line error, and leaves no draft behind.
 */
function createWithPid(file: string): boolean {
  const draft = `${file}.${process.pid}`;
  try {
    writeFileSync(draft, `${process.pid}\n`);
    linkSync(draft, file);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw cannotStart(file, error);
  } finally {
    removeFile(draft);
  }
}

/** Removes a file that may be gone already: rmSync would load Node's rimraf on every run. */
function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
}

function holderOf(file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but is someone else's; only ESRCH says it is gone.
    return errorCode(error) !== "ESRCH";
  }
}
