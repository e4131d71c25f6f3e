import { DEFAULT_EXCLUDE_DIRS } from "./load.js";

/** What `eb init` writes: every key, its default, and what it does. */
export const CONFIG_TEMPLATE = `# eval-banana project configuration.
# Precedence: command-line flags > EVAL_BANANA_* environment variables > this file > defaults.

[core]
# Where run folders go (relative to the project root, the folder holding .eval-banana/).
output_dir = ".eval-banana/results"
# Minimum share of checks that must pass (0.0-1.0). Any check with status "error" fails the run.
pass_threshold = 1.0
# Checks run at once.
max_parallel_checks = 4
# Wall-clock limit of one deterministic script; a script still running is killed with its children.
check_timeout_seconds = 300
# Runs of each check (judge reliability); with more than 1 a check scores its pass fraction.
samples = 1
# Python interpreter for deterministic checks (default: python3 on PATH), e.g. ".venv/bin/python".
# python = "python3"
# Kept for compatibility with the Python original; has no effect.
llm_max_input_chars = 0

[discovery]
# Folder names never searched for eval_checks/ (replaces the default list).
exclude_dirs = [${DEFAULT_EXCLUDE_DIRS.map((dir) => `"${dir}"`).join(", ")}]

[harness]
# Agent CLI for harness_judge checks: codex, claude, gemini, grok, openhands, opencode, pi,
# or a name defined under [agents.<name>]. Only needed when you have harness_judge checks.
agent = "codex"
# Model for the agent (a check's own "model" field wins). codex defaults to gpt-5.6-sol.
# model = "gpt-5.6-sol"
# Reasoning effort, for agents that take one (codex, claude, grok, opencode, pi).
# reasoning_effort = "high"
# Wall-clock limit of one agent run, in seconds.
timeout_seconds = 300
# Pass only these environment variables (plus PATH, HOME and the like) to agents.
# env_allowlist = ["OPENAI_API_KEY"]

# Extra environment variables for the agent process.
# [harness.env]
# MY_CUSTOM_VAR = "value"

# Override a built-in agent's template, or define a new agent:
# [agents.myagent]
# command = ["my-cli", "run"]
# shared_flags = ["--headless"]
# prompt_flag = "--prompt"
# model_flag = "--model"
# reasoning_effort_flag = ["--effort", "{effort}"]
# [agents.myagent.provider_env]
# MY_CLI_API_KEY = "{env:OPENAI_API_KEY}"

[eval]
# Settings of \`eb eval\` (JSONL cases sent to a model endpoint or a command).
# The API key is never read from this file: export EVAL_BANANA_API_KEY or OPENAI_API_KEY.
# Base URL of the OpenAI-compatible chat-completions endpoint.
api_base = "https://api.openai.com/v1"
# Judge model for "judge" graders, asked through the same endpoint (or pass --judge).
# judge = "gpt-4.1-mini"
# Cases run at once; the k samples of one case run one after another.
workers = 8
# Limit of one call (or one run of a --target command), in seconds, per attempt.
timeout_seconds = 120
# Retries of a call answered 408/409/429/5xx or cut off, with backoff (Retry-After is honoured).
max_retries = 4
# Where answers are cached (relative to the project root). --no-cache skips it.
cache_dir = ".eval-banana/cache"
# Minimum pass rate (0.0-1.0) for exit 0. Unset: the run fails only on error samples.
# pass_threshold = 0.8
`;
