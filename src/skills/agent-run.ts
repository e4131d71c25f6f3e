import path from "node:path";
import { buildInvocation } from "../agents/resolve.js";
import type { SkillAgent } from "../agents/skill-agents.js";
import type { AgentTemplate } from "../agents/templates.js";
import { readTranscript, skillUsed, type Transcript } from "../agents/transcript.js";
import type { HarnessConfig } from "../config/load.js";
import { runProcess } from "../process/run.js";
import { lastLine } from "../process/tail.js";
import type { Scrubber } from "../secrets/scrubber.js";
import type { CheckVerdict } from "./eval-checks.js";
import type { SkillFolder } from "./skill-dir.js";
import { type ChangedFile, openWorkspace } from "./workspace.js";

/** How every sample of both arms runs the agent: the same program, model, effort and timeout. */
export interface AgentSetup {
  agent: string;
  /** The agent's template with its JSON event flags added. */
  template: AgentTemplate;
  skillAgent: SkillAgent;
  harness: HarnessConfig;
  parentEnv: NodeJS.ProcessEnv;
  scrubber: Scrubber;
  warn: (message: string) => void;
}

/** What one sample of the agent did. */
export interface AgentSample {
  transcript: Transcript;
  changes: ChangedFile[];
  /** Whether the transcript shows the skill read or invoked; null when none was installed. */
  used: boolean | null;
  /** Why the run is no result (the agent could not start, timed out, failed); null: it finished. */
  error: string | null;
  model: string | null;
  ms: number;
  /** The workspace's path, as the transcript names it (the folder itself is gone). */
  workspace: string;
  /** The skill's eval_checks run on the workspace once the agent finished (none: not run). */
  checks: CheckVerdict[];
}

/** The agent's stdout is the transcript: keep all of it that a session plausibly prints. */
const TRANSCRIPT_CHARS = 16 * 1024 * 1024;

/**
 * Runs the agent once on `prompt` in a fresh workspace holding `files` (and `skill`, where the
 * agent looks for skills); its stdout and stderr and the files it changed are kept in `folder`.
 */
export async function runAgentSample(
  setup: AgentSetup,
  sample: { prompt: string; files: readonly string[]; skill: SkillFolder | null },
  where: {
    folder: string;
    signal: AbortSignal;
    /** Runs on the workspace after an agent that finished, before the workspace is deleted. */
    inspect?: ((workspace: string) => Promise<CheckVerdict[]>) | undefined;
  },
): Promise<AgentSample> {
  const { skill } = sample;
  const install = skill === null ? null : { folder: skill, skillsDir: setup.skillAgent.skillsDir };
  const workspace = await openWorkspace(sample.files, install);
  try {
    const invocation = buildInvocation({
      agent: setup.agent,
      template: setup.template,
      prompt: sample.prompt,
      model: setup.harness.model,
      reasoningEffort: setup.harness.reasoningEffort,
      harnessEnv: setup.harness.env,
      envAllowlist: setup.harness.envAllowlist,
      projectRoot: workspace.dir,
      parentEnv: setup.parentEnv,
      isRoot: process.getuid?.() === 0,
      warn: setup.warn,
    });
    if ("error" in invocation) throw new Error(invocation.error);
    const [command, ...args] = invocation.argv;
    const result = await runProcess({
      command: command!,
      args,
      cwd: workspace.dir,
      env: invocation.env,
      stdin: invocation.stdin,
      timeoutMs: setup.harness.timeoutSeconds * 1000,
      stdoutFile: path.join(where.folder, "transcript.jsonl"),
      stderrFile: path.join(where.folder, "stderr.txt"),
      keepChars: TRANSCRIPT_CHARS,
      signal: where.signal,
      scrubber: setup.scrubber,
    });
    const transcript = readTranscript(result.stdout);
    const changes = await workspace.changes();
    await workspace.keep(changes, path.join(where.folder, "outputs"), setup.scrubber.scrub);
    const failed = failure(result, setup.harness.timeoutSeconds);
    const checks =
      failed === null && where.inspect && !where.signal.aborted
        ? await where.inspect(workspace.dir)
        : [];
    return {
      transcript,
      changes,
      used: skill === null ? null : skillUsed(transcript.calls, skill.name),
      error: failed,
      model: invocation.model,
      ms: Math.round(result.ms),
      workspace: workspace.dir,
      checks,
    };
  } finally {
    await workspace.remove();
  }
}

function failure(result: Awaited<ReturnType<typeof runProcess>>, timeout: number): string | null {
  if (result.spawnError !== null) return `the agent could not start: ${result.spawnError}`;
  if (result.timedOut) return `the agent timed out after ${timeout} seconds`;
  if (result.exitCode === 0) return null;
  const last = (lastLine(result.stderr) ?? lastLine(result.stdout))?.slice(0, 300);
  const how =
    result.exitCode === null
      ? `was killed by ${result.signal}`
      : `exited with code ${result.exitCode}`;
  return `the agent ${how}${last ? `: ${last}` : ""}`;
}
