import { runProcess } from "./run.js";

/**
 * Runs the frozen script bytes as if `python <original path> <context.json>` had run:
 * `__file__` and `sys.argv[0]` are the original path and `sys.path[0]` its folder, so sibling
 * imports and path-relative reads behave as they would without the snapshot.
 *
 * Tracebacks name `<shown>` and count lines from `<first line>`: an inline script's traceback
 * points at its line in the YAML file. The source is put in linecache under that name, so the
 * traceback quotes the lines that ran, not what the file holds now (or a YAML line, indented
 * otherwise, under which the carets would be off); the traceback module prints from linecache,
 * unlike the interpreter's built-in printer. The launcher's own frame is left out of a
 * traceback that goes on into the script.
 *
 * Arguments: <frozen> <original> <context.json> <shown> <first line>.
 */
export const LAUNCHER = [
  "import linecache, os, sys, types",
  "frozen, original, context, shown, first = sys.argv[1:6]",
  "source = b'\\n' * (int(first) - 1) + open(frozen, 'rb').read()",
  "lines = source.decode('utf-8', 'replace').splitlines(True)",
  "linecache.cache[shown] = (len(source), None, lines, shown)",
  "sys.argv = [original, context]",
  "sys.path[0] = os.path.dirname(original)",
  "main = types.ModuleType('__main__')",
  "main.__file__ = original",
  "main.__builtins__ = __builtins__",
  "sys.modules['__main__'] = main",
  "def hook(kind, error, tb):",
  "    import traceback",
  "    traceback.print_exception(kind, error, tb and (tb.tb_next or tb))",
  "sys.excepthook = hook",
  "del linecache, os, types, frozen, original, context, first, lines, hook",
  "exec(compile(source, shown, 'exec'), main.__dict__)",
].join("\n");

export interface PythonInterpreter {
  /** What to spawn: the interpreter's own executable, so a version-manager shim runs once. */
  executable: string;
  /** Set when the interpreter could not be started at all. */
  error: string | null;
}

/**
 * Asks the configured interpreter (default `python3`) for `sys.executable` once per run.
 * Not a realpath: a virtualenv's python must stay the venv's, or its packages disappear.
 */
export async function resolvePython(
  configured: string | null,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<PythonInterpreter> {
  const command = configured ?? "python3";
  const result = await runProcess({
    command,
    args: ["-c", "import sys; print(sys.executable)"],
    cwd,
    env,
    timeoutMs: 30_000,
  });
  const executable = result.stdout.trim();
  if (result.exitCode === 0 && executable) return { executable, error: null };
  const why = result.spawnError ?? result.stderr.trim().split("\n").at(-1) ?? "no output";
  return {
    executable: command,
    error: `Python interpreter '${command}' could not be started (${why}). Install Python 3, or set --python, EVAL_BANANA_PYTHON or [core] python to an interpreter; nothing ran.`,
  };
}
