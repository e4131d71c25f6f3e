import { z } from "zod";
import { parseJsonOrNull } from "../report/json.js";
import { runProcess } from "./run.js";

/** One Python source to compile: `name` is the file name Python would give it. */
export interface PythonSource {
  name: string;
  bytes: Uint8Array;
}

/**
 * Reads a JSON list of {name, source (base64)} on stdin and prints a JSON list of the sources
 * that do not compile. Bytes, not text, so a coding declaration or a BOM counts as it would
 * when Python runs the file; warnings (an invalid escape) do not stop a script, so none shown.
 */
const COMPILER = [
  "import base64, json, sys, warnings",
  "warnings.simplefilter('ignore')",
  "errors = []",
  "for index, item in enumerate(json.loads(sys.stdin.buffer.read())):",
  "    try:",
  "        compile(base64.b64decode(item['source']), item['name'], 'exec', dont_inherit=True)",
  "    except Exception as error:",
  "        text = getattr(error, 'msg', None) or str(error)",
  "        line = getattr(error, 'lineno', None)",
  "        errors.append({'index': index, 'line': line, 'message': f'{type(error).__name__}: {text}'})",
  "sys.stdout.write(json.dumps(errors))",
].join("\n");

const errorsSchema = z.array(
  z.object({ index: z.number().int(), line: z.number().int().nullable(), message: z.string() }),
);
/** Why one source does not compile: its index in the list, its line, Python's message. */
export type CompileError = z.output<typeof errorsSchema>[number];

const KEEP_CHARS = 10_000_000;

/**
 * Compiles every source with one Python process (the run's interpreter) without running any.
 * Returns the errors, or why the sources could not be checked at all.
 */
export async function compilePython(
  python: string,
  sources: readonly PythonSource[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ errors: CompileError[] } | { failure: string }> {
  if (sources.length === 0) return { errors: [] };
  const input = sources.map((source) => ({
    name: source.name,
    source: Buffer.from(source.bytes).toString("base64"),
  }));
  const result = await runProcess({
    command: python,
    args: ["-c", COMPILER],
    cwd: options.cwd,
    env: options.env,
    stdin: JSON.stringify(input),
    timeoutMs: 60_000,
    keepChars: KEEP_CHARS,
  });
  if (result.exitCode !== 0 || result.stdoutTruncated) {
    const why = result.spawnError ?? (result.stderr.trim().split("\n").at(-1) || "no output");
    return { failure: `${python} could not compile the scripts (${why})` };
  }
  // Parsed once a run: compiling zod's fast path (new Function) would cost more than it saves.
  const parsed = errorsSchema.safeParse(parseJsonOrNull(result.stdout), { jitless: true });
  if (!parsed.success) return { failure: `${python} printed no list of compile errors` };
  return { errors: parsed.data };
}
