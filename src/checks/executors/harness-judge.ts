import { writeFile } from "node:fs/promises";
import path from "node:path";
import { buildInvocation, resolveTemplate } from "../../agents/resolve.js";
import { buildCheckJudgePrompt } from "../../judge/prompt.js";
import { extractVerdict, NO_VERDICT_MESSAGE } from "../../judge/verdict.js";
import { runProcess } from "../../process/run.js";
import { lastCodePoints, lastLine } from "../../process/tail.js";
import type { HarnessJudgeCheck } from "../types.js";
import { errorOutcome, unsavedOutput } from "./deterministic.js";
import type { ExecContext, ExecOutcome } from "./types.js";

/** Agents may print megabytes before the verdict; keep this much of stdout to search. */
const VERDICT_SEARCH_CHARS = 4 * 1024 * 1024;

/** Runs the configured agent on the check's prompt; the last valid verdict on stdout decides. */
export async function runHarnessJudge(
  check: HarnessJudgeCheck,
  context: ExecContext,
): Promise<ExecOutcome> {
  const { config, stem } = context;
  const agent = config.harness.agent!;
  const template = resolveTemplate(agent, config.agents);
  const prompt = buildCheckJudgePrompt(check.description, check.instructions, check.targetPaths);
  const details = {
    agent_type: agent,
    model: null as string | null,
    reasoning_effort: null as string | null,
    timeout_seconds: config.harness.timeoutSeconds,
    raw_response_path: null as string | null,
  };
  const invocation = buildInvocation({
    agent,
    template,
    prompt,
    model: check.model ?? config.harness.model,
    reasoningEffort: config.harness.reasoningEffort,
    harnessEnv: config.harness.env,
    envAllowlist: config.harness.envAllowlist,
    projectRoot: config.projectRoot,
    parentEnv: context.env,
    isRoot: process.getuid?.() === 0,
    warn: context.warn,
  });
  if ("error" in invocation) return errorOutcome(invocation.error, details);
  details.model = invocation.model;
  details.reasoning_effort = invocation.reasoningEffort;

  // The prompt is on disk before launch, so it survives a failing or hanging agent.
  await writeFile(path.join(context.checksDir, `${stem}.prompt.txt`), prompt);
  const [command, ...args] = invocation.argv;
  const result = await runProcess({
    command: command!,
    args,
    cwd: config.projectRoot,
    env: invocation.env,
    stdin: invocation.stdin,
    timeoutMs: config.harness.timeoutSeconds * 1000,
    stdoutFile: path.join(context.checksDir, `${stem}.stdout.txt`),
    stderrFile: path.join(context.checksDir, `${stem}.stderr.txt`),
    keepChars: VERDICT_SEARCH_CHARS,
    signal: context.signal,
    scrubber: context.scrubber,
  });
  if (result.stdoutChars > 0) details.raw_response_path = `checks/${stem}.stdout.txt`;
  const streams = {
    stdout: result.stdout,
    stdoutChars: result.stdoutChars,
    stderr: result.stderr,
    stderrChars: result.stderrChars,
    exitCode: result.exitCode,
    details,
    aborted: result.aborted,
  };
  const error = (detail: string): ExecOutcome => ({
    ...streams,
    status: "error",
    reason: null,
    errorDetail: detail,
  });
  if (result.spawnError !== null)
    return error(`Could not start agent '${command}': ${result.spawnError}`);
  if (result.timedOut) {
    return error(
      `Harness judge subprocess timed out after ${config.harness.timeoutSeconds} seconds`,
    );
  }
  const unsaved = unsavedOutput(result, context.checksDir);
  if (unsaved !== null) return error(unsaved);
  if (result.exitCode !== 0) {
    const last = (lastLine(result.stderr) ?? lastLine(result.stdout))?.slice(0, 300);
    const how =
      result.exitCode === null
        ? `was killed by ${result.signal}`
        : `exited with code ${result.exitCode}`;
    return error(`Agent ${how}${last ? `: ${last}` : ""}`);
  }
  const verdict = extractVerdict(result.stdout);
  const stdoutFile = details.raw_response_path;
  if (!verdict) return error(`${NO_VERDICT_MESSAGE} ${whatCame(result.stdout, stdoutFile)}`);
  const unexplained = `the judge scored 0 without a reason (its output: ${stdoutFile})`;
  return {
    ...streams,
    status: verdict.score === 1 ? "passed" : "failed",
    reason: verdict.reason ?? (verdict.score === 1 ? null : unexplained),
    errorDetail: null,
  };
}

/** Characters of an agent's last words quoted when it gave no verdict. */
const LAST_WORDS = 60;

/** What the agent printed instead of a verdict: how its stdout ends, and where all of it is. */
function whatCame(stdout: string, file: string | null): string {
  const trimmed = stdout.trimEnd();
  if (file === null || trimmed.trim() === "") return "The agent printed nothing on stdout.";
  const end = trimmed.length > LAST_WORDS ? `…${lastCodePoints(trimmed, LAST_WORDS)}` : trimmed;
  return `Its stdout ends with ${JSON.stringify(end)}; all of it is in ${file}.`;
}
