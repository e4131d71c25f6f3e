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
 * linecache is seeded when it is first imported (by traceback, warnings or the script), not
 * before: importing it, and the tokenize it imports, is ~1.5 ms of every check's start, and most
 * checks never print a traceback.
 *
 * Arguments: <frozen> <original> <context.json> <shown> <first line>.
 */
export const LAUNCHER = [
  "import os, sys",
  "frozen, original, context, shown, first = sys.argv[1:6]",
  "source = b'\\n' * (int(first) - 1) + open(frozen, 'rb').read()",
  "def seed(linecache):",
  "    lines = source.decode('utf-8', 'replace').splitlines(True)",
  "    linecache.cache[shown] = (len(source), None, lines, shown)",
  "class Seeding:",
  "    def __init__(self, loader):",
  "        self.loader = loader",
  "    def __getattr__(self, name):",
  "        return getattr(self.loader, name)",
  "    def create_module(self, spec):",
  "        return self.loader.create_module(spec)",
  "    def exec_module(self, module):",
  "        self.loader.exec_module(module)",
  "        seed(module)",
  "class SeedOnImport:",
  "    @staticmethod",
  "    def find_spec(name, path=None, target=None):",
  "        if name != 'linecache':",
  "            return None",
  "        sys.meta_path.remove(SeedOnImport)",
  "        for finder in sys.meta_path:",
  "            find = getattr(finder, 'find_spec', None)",
  "            spec = find and find(name, path, target)",
  "            if spec is not None and spec.loader is not None:",
  "                spec.loader = Seeding(spec.loader)",
  "                return spec",
  "if 'linecache' in sys.modules:",
  "    seed(sys.modules['linecache'])",
  "else:",
  "    sys.meta_path.insert(0, SeedOnImport)",
  "sys.argv = [original, context]",
  "sys.path[0] = os.path.dirname(original)",
  "main = type(sys)('__main__')",
  "main.__file__ = original",
  "main.__builtins__ = __builtins__",
  "sys.modules['__main__'] = main",
  "def hook(kind, error, tb):",
  "    import traceback",
  "    traceback.print_exception(kind, error, tb and (tb.tb_next or tb))",
  "sys.excepthook = hook",
  "del os, frozen, original, context, first, hook",
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
