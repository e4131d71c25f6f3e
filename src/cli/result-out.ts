import { lstat } from "node:fs/promises";
import path from "node:path";
import { HarnessError } from "../agents/resolve.js";
import { NoChecksError } from "../checks/preflight.js";
import { type ResultStatus, resultObject } from "../checks/result-file.js";
import type { CheckRun } from "../checks/run-checks.js";
import type { Config } from "../config/load.js";
import { InputError } from "../errors.js";
import { type ResultFormat, resultFileText } from "../render/result-file.js";
import { runMarkdown } from "../render/run-markdown.js";
import { headCommit, observeTree } from "../run/git-tree.js";
import { writeWhole } from "./write-whole.js";

export interface ResultOutFlags {
  resultOut?: string;
  resultFormat?: ResultFormat;
  provenanceAttempt?: string;
  provenanceField?: [string, string][];
}

/** What a run command tells the result file as it goes: the config once loaded, the run once done. */
export interface RunSeen {
  config?: Config;
  run?: CheckRun;
}

/**
 * Runs `run` and writes the `--result-out` file whatever happens: the report when there is one,
 * else the status and the error that stopped the run before one (which is then thrown on, so
 * the exit code is what it would have been without the file). Without --result-out, just runs.
 */
export async function withResultFile(
  flags: ResultOutFlags & { cwd: string; passThreshold?: string },
  run: (seen: RunSeen) => Promise<number>,
): Promise<number> {
  if (flags.resultOut === undefined) return run({});
  const file = path.resolve(flags.cwd, flags.resultOut);
  await refuseSymlink(file, flags.resultOut);
  // Before the run: a judge that edits the tree cannot change what the run was asked to judge.
  const before = await observeTree(flags.cwd);
  const seen: RunSeen = {};
  const write = async (status: ResultStatus, error: string | null) => {
    await refuseSymlink(file, flags.resultOut!);
    const report = seen.run?.report ?? null;
    const object = resultObject({
      report,
      status,
      error,
      passThreshold: seen.config?.passThreshold ?? Number(flags.passThreshold ?? 1),
      agent: seen.config?.harness.agent ?? null,
      before,
      commitAfter: await headCommit(flags.cwd),
      provenance: Object.fromEntries([
        ["attempt", flags.provenanceAttempt ?? null],
        ...(flags.provenanceField ?? []),
      ]),
      producedAt: new Date(),
    });
    const body = seen.run === undefined ? null : runMarkdown(seen.run.document);
    await writeWhole(
      file,
      resultFileText(object, flags.resultFormat ?? "md", body),
      "--result-out",
      "the result file",
    );
  };
  let code: number;
  try {
    code = await run(seen);
  } catch (error) {
    await write(statusOf(error), error instanceof Error ? error.message : String(error));
    throw error;
  }
  await write("completed", null);
  return code;
}

/** What stopped a run before its report, in the result file's words. */
function statusOf(error: unknown): ResultStatus {
  if (error instanceof NoChecksError) return "no_checks";
  if (error instanceof HarnessError) return "harness_error";
  return error instanceof InputError ? "config_error" : "harness_error";
}

/** A link at the path is refused: writing through it would change a file somewhere else. */
async function refuseSymlink(file: string, given: string): Promise<void> {
  const found = await lstat(file).catch(() => null);
  if (found?.isSymbolicLink()) {
    throw new InputError(
      `--result-out ${given} is a symlink: refused (eb writes the result file only as a regular file). Remove the link or name another path.`,
    );
  }
}
