import { readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import type { DeterministicCheck } from "./types.js";

/** The referenced script as frozen before execution: these bytes are hashed and run. */
export type ScriptSnapshot =
  | { state: "readable"; resolvedPath: string; bytes: Uint8Array }
  | { state: "unavailable"; resolvedPath: string; reason: string };

export async function readScriptSnapshot(
  check: DeterministicCheck,
): Promise<ScriptSnapshot | null> {
  if (check.scriptPath === null) return null;
  const joined = path.resolve(path.dirname(check.sourcePath), check.scriptPath);
  const resolvedPath = await realpath(joined).catch(() => joined);
  try {
    const info = await stat(resolvedPath);
    if (!info.isFile()) return unavailable(resolvedPath);
    return { state: "readable", resolvedPath, bytes: await readFile(resolvedPath) };
  } catch (error) {
    return unavailable(resolvedPath, error);
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
