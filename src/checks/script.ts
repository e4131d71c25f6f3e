import { readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { DeterministicCheck } from "./types.js";

/** The referenced script as frozen before execution: these bytes are hashed and run. */
export type ScriptSnapshot =
  | { state: "readable"; resolvedPath: string; bytes: Uint8Array }
  | { state: "unavailable"; resolvedPath: string; reason: string };

/**
 * Read in place, like the check files: a few hundred small reads as promises were round trips
 * through the thread pool before any check could start.
 */
export function readScriptSnapshot(check: DeterministicCheck): ScriptSnapshot | null {
  if (check.scriptPath === null) return null;
  const joined = path.resolve(path.dirname(check.sourcePath), check.scriptPath);
  const resolvedPath = realpathOrAsIs(joined);
  try {
    if (!statSync(resolvedPath).isFile()) return unavailable(resolvedPath);
    return { state: "readable", resolvedPath, bytes: readFileSync(resolvedPath) };
  } catch (error) {
    return unavailable(resolvedPath, error);
  }
}

function realpathOrAsIs(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return file;
  }
}

function unavailable(resolvedPath: string, error?: unknown): ScriptSnapshot {
  const cause = error instanceof Error && "code" in error ? ` (${String(error.code)})` : "";
  return {
    state: "unavailable",
    resolvedPath,
    reason: `Deterministic script not found: ${resolvedPath}${cause}`,
  };
}
