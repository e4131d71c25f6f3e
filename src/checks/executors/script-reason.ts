import path from "node:path";
import type { ProcessResult } from "../../process/run.js";
import { lastLine } from "../../process/tail.js";

/** A traceback's frame, `  File "x.yaml", line 19, in <module>`, or a SyntaxError's place. */
const FRAME = /^ {2}File "(.*)", line (\d+)/;
/** Under a frame, the source line it ran (Python indents it by four spaces). */
const SOURCE = /^ {4}\S/;
/** An exception raised without a message: `AssertionError`, `KeyboardInterrupt`. */
const BARE_EXCEPTION = /^[A-Za-z_][\w.]*$/;

/**
 * How a script is named in its tracebacks: relative to the project root (its working folder)
 * when inside it, so the name can be opened as it is printed.
 */
export function shownPath(projectRoot: string, file: string): string {
  const relative = path.relative(projectRoot, file);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}

/**
 * Why a script failed, in its own words: the last line of its stderr (a traceback's exception
 * and message, or what `sys.exit("...")` printed) with the script's line that raised it; else
 * the last line of its stdout; else how it exited.
 */
export function scriptReason(result: ProcessResult, exitCode: number, shown: string): string {
  const last = lastLine(result.stderr);
  if (last === null) return lastLine(result.stdout) ?? exitedHow(result, exitCode);
  const frame = lastFrame(result.stderr, shown);
  if (frame === null) return last;
  const at = `${shown}:${frame.line}`;
  if (BARE_EXCEPTION.test(last) && frame.source !== null) {
    return `${last} at ${at}: ${frame.source}`;
  }
  return `${last} (${at})`;
}

/** The innermost frame of the script itself (not of a module it called), with its source. */
function lastFrame(stderr: string, shown: string): { line: number; source: string | null } | null {
  const lines = stderr.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = FRAME.exec(lines[i]!);
    if (match?.[1] !== shown) continue;
    const next = lines[i + 1] ?? "";
    return { line: Number(match[2]), source: SOURCE.test(next) ? next.trim() : null };
  }
  return null;
}

function exitedHow(result: ProcessResult, exitCode: number): string {
  if (result.signal) return `killed by ${result.signal}, without printing anything`;
  return `exited with code ${exitCode} without printing anything`;
}
