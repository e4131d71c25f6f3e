import { DEFAULT_EXCLUDE_DIRS } from "./load.js";
import { SETTINGS, type Section, type Setting, sentence } from "./settings.js";

const WIDTH = 100;

/**
 * What `eb init` writes: every key, its default, and what it does. The scalar settings come from
 * the settings table; lists and tables, which it does not hold, are written here.
 */
export const CONFIG_TEMPLATE = `# eval-banana project configuration.
# Precedence: command-line flags > EVAL_BANANA_* environment variables > this file > defaults.

[core]
${sectionLines("core")}

[discovery]
# Folder names never searched for eval_checks/ (replaces the default list).
exclude_dirs = [${DEFAULT_EXCLUDE_DIRS.map((dir) => `"${dir}"`).join(", ")}]

[harness]
${sectionLines("harness")}
# Pass only these environment variables (plus PATH, HOME and the like) to agents.
# env_allowlist = ["OPENAI_API_KEY"]

# Extra environment variables for the agent process.
# [harness.env]
# MY_CUSTOM_VAR = "value"

# Override a built-in agent's template, or define a new agent (a new one needs a command):
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
${sectionLines("eval")}

[report]
${sectionLines("report")}

# Prices, in US dollars, for the cost lines of reports, --dry-run's estimates and --max-cost.
# A model eb eval calls: input_per_mtok and output_per_mtok, per million tokens. A harness_judge
# check's model: per_run, your estimate of one agent run (agent CLIs report no usage to eb, so
# eb run --max-cost cannot cap a judge without it).
# [pricing."gpt-4.1-mini"]
# input_per_mtok = 0.40
# output_per_mtok = 1.60
# [pricing."gpt-5.6-sol"]
# per_run = 0.25
`;

function sectionLines(section: Section): string {
  const all: readonly Setting[] = SETTINGS;
  const settings = all.filter((s) => s.section === section && s.template !== false);
  return settings
    .flatMap((setting) => [...comment(sentence(setting.help)), valueLine(setting)])
    .join("\n");
}

/** `key = value` when init writes a value, else the example commented out. */
function valueLine(setting: Setting): string {
  const value = setting.init ?? setting.default;
  if (value !== undefined) return `${setting.key} = ${tomlValue(value)}`;
  return `# ${setting.key} = ${tomlValue(setting.example ?? "")}`;
}

function tomlValue(value: string | number): string {
  // A JSON string is a TOML basic string for the values the table holds.
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** `# text` wrapped at WIDTH columns. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(" ")) {
    if (line !== "#" && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}
