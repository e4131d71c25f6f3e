import { InputError } from "../errors.js";

/** What a file-system error code means, for messages a user can act on. */
const MEANINGS: Record<string, string> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTDIR: "a part of the path is a file, not a folder",
  EEXIST: "a file is in the way",
  EISDIR: "it is a folder",
  ELOOP: "too many symbolic links (a loop?)",
  ENAMETOOLONG: "the path is too long",
  EIO: "input/output error",
};

/** The codes that mean the disk is full: the run stops short and can be resumed later. */
const FULL = new Set(["ENOSPC", "EDQUOT"]);

export function errorCode(error: unknown): string | null {
  return error instanceof Error && "code" in error && typeof error.code === "string"
    ? error.code
    : null;
}

/** `ENOSPC (no space left on device)`, or the error's own message. */
export function describeFsError(error: unknown): string {
  const code = errorCode(error);
  if (code !== null && MEANINGS[code]) return `${code} (${MEANINGS[code]})`;
  return error instanceof Error ? error.message : String(error);
}

export function isDiskFull(error: unknown): boolean {
  return FULL.has(errorCode(error) ?? "");
}

/**
 * A run folder that cannot be written before this attempt ran a sample (its lock, its rows
 * file): a one-line InputError naming the file. Anything but a file-system error goes on as it is.
 */
export function cannotStart(file: string, error: unknown): unknown {
  if (errorCode(error) === null) return error;
  const advice = isDiskFull(error) ? " free some space;" : "";
  return new InputError(
    `cannot write ${file}: ${describeFsError(error)};${advice} nothing was run.`,
  );
}
