import { type Command, Option } from "commander";
import { SETTINGS, type Section, type SettingValues, settingId } from "../config/settings.js";

/** `--harness-agent` for [harness] agent, `--output-dir` for [core] output_dir. */
function flagName(section: Section, key: string): string {
  return `${section === "harness" ? "harness-" : ""}${key.replaceAll("_", "-")}`;
}

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** Adds one option per setting of the given sections (help text from the settings table). */
export function addSettingOptions(command: Command, keys: readonly string[]): Command {
  for (const setting of SETTINGS) {
    if (!keys.includes(settingId(setting))) continue;
    const flag = flagName(setting.section, setting.key);
    const value = setting.kind === "string" ? "TEXT" : setting.kind === "integer" ? "INT" : "NUM";
    const env = "env" in setting ? ` [env: EVAL_BANANA_${setting.env}]` : "";
    command.addOption(new Option(`--${flag} <${value}>`, `${setting.help}${env}`));
  }
  return command;
}

/** The flags the user gave, keyed like the settings table, for loadConfig. */
export function settingFlags(options: Record<string, unknown>): SettingValues {
  const values: SettingValues = {};
  for (const setting of SETTINGS) {
    const value = options[camel(flagName(setting.section, setting.key))];
    if (typeof value === "string") values[settingId(setting)] = value;
  }
  return values;
}

export const HARNESS_SETTINGS = [
  "harness.agent",
  "harness.model",
  "harness.reasoning_effort",
  "harness.timeout_seconds",
] as const;

export const RUN_SETTINGS = [
  "core.output_dir",
  "core.pass_threshold",
  "core.max_parallel_checks",
  "core.check_timeout_seconds",
  "core.samples",
  "core.python",
  ...HARNESS_SETTINGS,
] as const;

/** Options shared by list, validate and run. */
export function addDiscoveryOptions(command: Command): Command {
  return command
    .option("--check-dir <PATH>", "scan only this folder (relative to the project root)")
    .option("--cwd <PATH>", "working directory: where the config search starts", ".")
    .option("--verbose", "print debug information to stderr");
}

export function addNoProjectConfig(command: Command): Command {
  return command.option(
    "--no-project-config",
    "ignore .eval-banana/config.toml; the project root is --cwd",
  );
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
