/** How to run one agent CLI headless so that its stdout ends with the judge's verdict. */
export interface AgentTemplate {
  command: string[];
  sharedFlags: string[];
  /** null: the prompt is a positional argument. */
  promptFlag: string | null;
  /** Where the prompt goes: last argument, right after the command, or written to stdin. */
  promptPosition: "tail" | "after_command" | "stdin";
  modelFlag: string | null;
  /** Variables set to the effective model (for CLIs that read the model from the environment). */
  modelEnvVars: string[];
  defaultModel: string | null;
  reasoningEffort: string | null;
  /** Arguments carrying the effort; every `{effort}` is replaced. */
  reasoningEffortFlag: string[];
  /** Values may hold `{env:VAR}`, filled from our environment at launch. */
  providerEnv: Record<string, string>;
  /** Fixed variables the CLI needs to run headless (ours, not user-configurable). */
  env: Record<string, string>;
  /** Extra fixed variables when running as root. */
  rootEnv: Record<string, string>;
  /** How to install the CLI, for error messages. */
  install: string | null;
}

const BLANK: AgentTemplate = {
  command: [],
  sharedFlags: [],
  promptFlag: null,
  promptPosition: "tail",
  modelFlag: "--model",
  modelEnvVars: [],
  defaultModel: null,
  reasoningEffort: null,
  reasoningEffortFlag: [],
  providerEnv: {},
  env: {},
  rootEnv: {},
  install: null,
};

/**
 * Built-in agents, measured against the real CLIs (docs/agent-clis.md). All print plain
 * text: a JSON output format would hide the verdict inside escaped strings.
 */
export const BUILTIN_AGENTS: Readonly<Record<string, AgentTemplate>> = {
  codex: {
    ...BLANK,
    command: ["codex", "exec"],
    sharedFlags: ["--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check"],
    defaultModel: "gpt-5.6-sol",
    reasoningEffort: "high",
    reasoningEffortFlag: ["-c", "model_reasoning_effort={effort}"],
    install: "npm i -g @openai/codex",
  },
  claude: {
    ...BLANK,
    command: ["claude"],
    sharedFlags: ["-p", "--dangerously-skip-permissions"],
    modelEnvVars: [
      "ANTHROPIC_MODEL",
      "ANTHROPIC_DEFAULT_SONNET_MODEL",
      "ANTHROPIC_DEFAULT_OPUS_MODEL",
    ],
    reasoningEffortFlag: ["--effort", "{effort}"],
    // Bypass mode refuses to run as root unless told it is in a sandbox.
    rootEnv: { IS_SANDBOX: "1" },
    install: "npm i -g @anthropic-ai/claude-code",
  },
  gemini: {
    ...BLANK,
    command: ["gemini"],
    // Without --skip-trust a fresh HOME (every CI machine) exits 55 "not a trusted directory".
    sharedFlags: ["--approval-mode", "yolo", "--skip-trust"],
    promptFlag: "-p",
    install: "npm i -g @google/gemini-cli",
  },
  grok: {
    ...BLANK,
    command: ["grok"],
    sharedFlags: ["--always-approve", "--no-auto-update", "--output-format", "plain"],
    promptFlag: "-p",
    reasoningEffortFlag: ["--reasoning-effort", "{effort}"],
    install: "npm i -g @xai-official/grok",
  },
  openhands: {
    ...BLANK,
    command: ["openhands"],
    sharedFlags: ["--headless", "--override-with-envs"],
    promptFlag: "-t",
    modelFlag: null,
    modelEnvVars: ["LLM_MODEL"],
    // Its summary panel wraps at 80 columns when not on a terminal, splitting the verdict.
    env: { COLUMNS: "10000" },
    install: "uv tool install openhands (Python 3.12)",
  },
  opencode: {
    ...BLANK,
    // `opencode PROMPT` treats the prompt as a folder and exits 0 without asking the model.
    command: ["opencode", "run"],
    // `opencode run` wraps each argument that contains a space in quotes and escapes its
    // quotes (`"…{\"score\": …}"`) before the model sees it; a prompt on stdin goes verbatim.
    promptPosition: "stdin",
    modelFlag: "-m",
    reasoningEffortFlag: ["--variant", "{effort}"],
    install: "npm i -g opencode-ai",
  },
  pi: {
    ...BLANK,
    command: ["pi"],
    sharedFlags: ["-p", "--no-session"],
    reasoningEffortFlag: ["--thinking", "{effort}"],
    install: "npm i -g @mariozechner/pi-coding-agent",
  },
};

/** Starting point of an agent defined only in `[agents.<name>]`. */
export const CUSTOM_AGENT_BASE: AgentTemplate = BLANK;
