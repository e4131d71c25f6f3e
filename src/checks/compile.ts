import { type CompileError, compilePython, type PythonSource } from "../process/compile.js";
import type { ScriptSnapshot } from "./script.js";
import type { Check } from "./types.js";

/** A check with the script bytes that would run (a `script_path` snapshot, or none). */
export interface ScriptOf {
  check: Check;
  script: ScriptSnapshot | null;
}

export interface SyntaxFindings {
  /** `file:line: message` of each script that does not compile, by check id. */
  byId: Map<string, string>;
  /** Why the scripts could not be compiled at all, or null. */
  failure: string | null;
}

/**
 * Compiles the script of every deterministic check with the run's interpreter, in one process,
 * running none. An inline script's line is the YAML file's line; a script_path's, its own.
 */
export async function syntaxErrors(
  items: readonly ScriptOf[],
  python: string,
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<SyntaxFindings> {
  const scripts = items.flatMap((item) => {
    const source = sourceOf(item);
    return source === null ? [] : [{ check: item.check, source }];
  });
  const compiled = await compilePython(
    python,
    scripts.map(({ source }) => source),
    options,
  );
  if ("failure" in compiled) return { byId: new Map(), failure: compiled.failure };
  const byId = new Map(
    compiled.errors.map((error) => {
      const { check, source } = scripts[error.index]!;
      return [check.id, describe(check, source, error)] as const;
    }),
  );
  return { byId, failure: null };
}

function sourceOf({ check, script }: ScriptOf): PythonSource | null {
  if (check.type !== "deterministic") return null;
  if (script?.state === "readable") return { name: script.resolvedPath, bytes: script.bytes };
  if (check.script === null) return null;
  return { name: check.sourcePath, bytes: Buffer.from(check.script, "utf8") };
}

function describe(check: Check, source: PythonSource, error: CompileError): string {
  // Only an inline script's lines are the YAML file's (its name is the YAML file's).
  const place = check.type === "deterministic" && check.script !== null ? check.scriptPlace : null;
  const line =
    error.line === null ? 1 : place === null ? error.line : place.firstLine + error.line - 1;
  const hint = place?.folded
    ? '; YAML joined the script\'s lines into one: write it as a block, "script: |"'
    : "";
  return `${source.name}:${line}: the script does not compile: ${error.message}${hint}`;
}
