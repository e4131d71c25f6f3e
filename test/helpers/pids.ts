import { existsSync, readFileSync } from "node:fs";

/**
 * The pid in `file`, or null until one is written. A file that is created but not yet written
 * reads as "", and Number("") is 0: process.kill(0) would kill this whole process group (vitest,
 * npm and the CI script that started them; it once ended a CI run with exit 137), so anything but
 * a whole pid above 1 is null.
 */
export function pidIn(file: string): number | null {
  if (!existsSync(file)) return null;
  const text = readFileSync(file, "utf8").trim();
  return /^\d+$/.test(text) && Number(text) > 1 ? Number(text) : null;
}

/** SIGKILL to the pid in `file`, if it was written and the process still runs. */
export function killPidIn(file: string): void {
  const pid = pidIn(file);
  if (pid === null) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Alive and not a zombie (a reparented grandchild may wait for a reaper that never comes). */
export function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}
