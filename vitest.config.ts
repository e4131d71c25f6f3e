import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * The folder of the interpreter `python3` runs, first on PATH: eb and the tests start python3
 * hundreds of times, and a version manager's shim (pyenv's: a chain of ~20 bash processes) costs
 * 0.3 s of CPU at every start (merge and cli-errors tests: 123 s of CPU, 87 s without it). The
 * same interpreter.
 */
function pythonFirst(): string {
  const searched = process.env.PATH ?? "";
  try {
    const where = "import os, sys; print(os.path.dirname(sys.executable))";
    const folder = execFileSync("python3", ["-c", where], { encoding: "utf8" }).trim();
    return folder ? `${folder}${path.delimiter}${searched}` : searched;
  } catch {
    return searched;
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/agents/**"],
    // Tests that start eb and its targets as processes take 2–3× longer on a slow shared 2-core
    // machine than on CI's (seen: node's start 0.10 s, not 0.04): a hang still fails, in a minute.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Most test files wait on the eb processes they start, not on a core: vitest's default of
    // one file per core but one (a single file on a 2-core CI runner) leaves the machine idle.
    pool: "forks",
    maxWorkers: 2 * os.availableParallelism(),
    // A test that kills a process ignoring SIGTERM waits out this grace, not the 2 s users get.
    env: { EVAL_BANANA_KILL_GRACE_MS: "300", PATH: pythonFirst() },
  },
});
