import { didYouMean, InputError, InputProblems } from "../errors.js";
import type { AgentOverride } from "./override.js";
import { type AgentTemplate, BUILTIN_AGENTS, CUSTOM_AGENT_BASE } from "./templates.js";

/**
 * What stops a judge check before it runs: no agent configured, or an unknown one. Its own
 * class, as the result file (`eb run --result-out`) reports it as `harness_error`.
 */
export class HarnessError extends InputProblems {}

/** The built-in template of `name` with its `[agents.<name>]` override applied. */
export function resolveTemplate(
  name: string,
  overrides: Readonly<Record<string, AgentOverride>>,
): AgentTemplate {
  const builtin = BUILTIN_AGENTS[name];
  const override = overrides[name];
  if (!builtin && !override) {
    const known = [...Object.keys(BUILTIN_AGENTS), ...Object.keys(overrides)];
    const near = didYouMean(name, known);
    throw new HarnessError([
      `Unknown harness agent: ${name}${near === null ? "" : ` (${near})`}. ` +
        `Known agents: ${known.join(", ")}. ` +
        `Pick one of them, or define [agents.${name}] with a command in .eval-banana/config.toml.`,
    ]);
  }
  if (!builtin && !override?.command) {
    throw new InputError(`[agents.${name}] command is required for custom agents.`);
  }
  return applyOverride(builtin ?? CUSTOM_AGENT_BASE, override ?? {});
}

function applyOverride(base: AgentTemplate, o: AgentOverride): AgentTemplate {
  const pick = <T>(value: T | undefined, fallback: T): T =>
    value === undefined ? fallback : value;
  return {
    ...base,
    command: pick(o.command, base.command),
    sharedFlags: pick(o.shared_flags, base.sharedFlags),
    promptFlag: pick(o.prompt_flag, base.promptFlag),
    promptPosition: pick(o.prompt_position, base.promptPosition),
    modelFlag: pick(o.model_flag, base.modelFlag),
    modelEnvVars: pick(o.model_env_vars, base.modelEnvVars),
    defaultModel: pick(o.default_model, base.defaultModel),
    reasoningEffort: pick(o.reasoning_effort, base.reasoningEffort),
    reasoningEffortFlag: pick(o.reasoning_effort_flag, base.reasoningEffortFlag),
    providerEnv: pick(o.provider_env, base.providerEnv),
  };
}

export interface InvocationInput {
  agent: string;
  template: AgentTemplate;
  prompt: string;
  /** Per-check model, else `[harness] model`; null falls back to the template's default. */
  model: string | null;
  /** `[harness] reasoning_effort`; null falls back to the template's. */
  reasoningEffort: string | null;
  harnessEnv: Readonly<Record<string, string>>;
  /** When set, agents see only these variables (plus what they need to start). */
  envAllowlist: readonly string[] | null;
  projectRoot: string;
  parentEnv: NodeJS.ProcessEnv;
  isRoot: boolean;
  warn: (message: string) => void;
}

export interface Invocation {
  argv: string[];
  /** Written to the agent's stdin (then closed); undefined: stdin is /dev/null. */
  stdin: string | undefined;
  env: NodeJS.ProcessEnv;
  model: string | null;
  reasoningEffort: string | null;
}

/** argv and environment for one agent run, or why the template cannot carry the settings. */
export function buildInvocation(input: InvocationInput): Invocation | { error: string } {
  const t = input.template;
  const model = input.model ?? t.defaultModel;
  const effort = input.reasoningEffort ?? t.reasoningEffort;
  if (model !== null && t.modelFlag === null && t.modelEnvVars.length === 0) {
    return {
      error: `Agent '${input.agent}' has no way to receive a model (no model_flag or model_env_vars), but model '${model}' was selected. Remove the model setting or set [agents.${input.agent}] model_flag.`,
    };
  }
  const effortCarrier = t.reasoningEffortFlag.some((arg) => arg.includes("{effort}"));
  if (effort !== null && !effortCarrier) {
    return {
      error: `Agent '${input.agent}' has no reasoning-effort flag containing {effort}, but reasoning effort '${effort}' was selected. Remove the reasoning_effort setting or set [agents.${input.agent}] reasoning_effort_flag.`,
    };
  }
  const promptArgs = t.promptFlag === null ? [input.prompt] : [t.promptFlag, input.prompt];
  const argv = [
    ...t.command,
    ...(t.promptPosition === "after_command" ? promptArgs : []),
    ...t.sharedFlags,
    ...(model !== null && t.modelFlag !== null ? [t.modelFlag, model] : []),
    ...(effort !== null
      ? t.reasoningEffortFlag.map((arg) => arg.replaceAll("{effort}", effort))
      : []),
    ...(t.promptPosition === "tail" ? promptArgs : []),
  ];
  const stdin = t.promptPosition === "stdin" ? input.prompt : undefined;
  return { argv, env: agentEnv(input, model), stdin, model, reasoningEffort: effort };
}

/** Variables an agent needs to start at all, kept even under an allowlist. */
const ESSENTIAL_ENV = ["PATH", "HOME", "USER", "LANG", "LC_ALL", "TERM", "TMPDIR", "SHELL"];

/** Later entries win: parent env, fixed, provider_env, [harness.env], model vars, ours. */
function agentEnv(input: InvocationInput, model: string | null): NodeJS.ProcessEnv {
  const t = input.template;
  const base = input.envAllowlist
    ? pickEnv(input.parentEnv, [...ESSENTIAL_ENV, ...input.envAllowlist])
    : input.parentEnv;
  return {
    ...base,
    CI: "1",
    PYTHONUNBUFFERED: "1",
    ...t.env,
    ...(input.isRoot ? t.rootEnv : {}),
    ...fillProviderEnv(t.providerEnv, input.parentEnv, input.warn),
    ...input.harnessEnv,
    ...(model === null ? {} : Object.fromEntries(t.modelEnvVars.map((name) => [name, model]))),
    // The agent runs in the project root; some CLIs (opencode) take their workspace from $PWD.
    PWD: input.projectRoot,
    EVAL_BANANA_PROJECT_ROOT: input.projectRoot,
    EVAL_BANANA_HARNESS_AGENT: input.agent,
  };
}

function pickEnv(env: NodeJS.ProcessEnv, names: readonly string[]): NodeJS.ProcessEnv {
  return Object.fromEntries(
    names.filter((name) => env[name] !== undefined).map((n) => [n, env[n]]),
  );
}

const PLACEHOLDER = /\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `provider_env` with its `{env:VAR}` placeholders filled from `parentEnv`. */
export function fillProviderEnv(
  providerEnv: Readonly<Record<string, string>>,
  parentEnv: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): Record<string, string> {
  const fill = (value: string) =>
    value.replaceAll(PLACEHOLDER, (_, name: string) => {
      const found = parentEnv[name];
      if (found === undefined)
        warn(`provider_env refers to {env:${name}}, which is not set; using ""`);
      return found ?? "";
    });
  return Object.fromEntries(Object.entries(providerEnv).map(([key, value]) => [key, fill(value)]));
}
