import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Config } from "../config/load.js";
import { InputError } from "../errors.js";
import type { GraderProcesses } from "../graders/types.js";
import { compilePython } from "../process/compile.js";
import { type PythonInterpreter, resolvePython } from "../process/python.js";
import { loadCases } from "./load.js";
import type { Case } from "./schema.js";

/** One script grader's Python, where it is named in the case file. */
interface Named {
  where: string;
  name: string;
  bytes: Uint8Array;
}

/**
 * Before a run: every script grader's `script_path` exists and every script compiles with the
 * run's Python, so a typo is one error at the case file's line, not an error row per sample.
 */
export async function checkGraderPython(
  cases: readonly Case[],
  casesFile: string,
  processes: GraderProcesses,
): Promise<void> {
  const problems: string[] = [];
  const sources: Named[] = [];
  const seen = new Set<string>();
  for (const c of cases) {
    for (const [i, grader] of c.graders.entries()) {
      const python = grader.python;
      if (python === undefined) continue;
      const where = `${casesFile}:${c.line}: graders[${i}] (${grader.type})`;
      const file = python.path === undefined ? null : path.resolve(processes.casesDir, python.path);
      const key = file ?? python.source ?? "";
      if (seen.has(key)) continue;
      seen.add(key);
      if (file === null) {
        sources.push({ where, name: "<script>", bytes: Buffer.from(python.source ?? "") });
        continue;
      }
      const bytes = await readFile(file).catch(() => null);
      if (bytes === null)
        problems.push(`${where}: script_path ${python.path}: no such file ${file}`);
      else sources.push({ where, name: file, bytes });
    }
  }
  if (sources.length > 0) problems.push(...(await compileErrors(sources, processes)));
  if (problems.length > 0) throw new InputError(problems.join("\n"));
}

async function compileErrors(sources: Named[], processes: GraderProcesses): Promise<string[]> {
  const python = await processes.python();
  if (python.error !== null) return [python.error];
  const compiled = await compilePython(python.executable, sources, {
    cwd: processes.cwd,
    env: processes.env,
  });
  if ("failure" in compiled) return [compiled.failure];
  return compiled.errors.map((error) => {
    const at = error.line === null ? "" : ` (line ${error.line} of the script)`;
    return `${sources[error.index]!.where}: ${error.message}${at} — fix the script`;
  });
}

/**
 * Grader programs run as a --target command does (in --cwd, eb's environment less its API keys),
 * with a check's timeout and interpreter, asked for once.
 */
export function graderProcesses(
  config: Config,
  run: { cwd: string; casesFile: string; env: NodeJS.ProcessEnv; signal?: AbortSignal },
): GraderProcesses {
  let python: Promise<PythonInterpreter> | null = null;
  return {
    python: () => {
      python ??= resolvePython(config.python, run.cwd, run.env);
      return python;
    },
    cwd: run.cwd,
    casesDir: path.dirname(path.resolve(run.cwd, run.casesFile)),
    env: run.env,
    timeoutMs: config.checkTimeoutSeconds * 1000,
    ...(run.signal === undefined ? {} : { signal: run.signal }),
  };
}

/**
 * `eb validate CASES`: the checks `eb eval` makes before its first call (every line, every
 * grader, every script grader's file and Python), without calling anything.
 */
export async function validateCases(
  casesFile: string,
  run: { config: Config; cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ cases: number }> {
  const { cases } = await loadCases(casesFile);
  const processes = graderProcesses(run.config, { ...run, casesFile });
  await checkGraderPython(cases, casesFile, processes);
  return { cases: cases.length };
}
