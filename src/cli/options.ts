import { type Command, Option } from "commander";
import {
  envName,
  flagName,
  SETTINGS,
  type Setting,
  type SettingId,
  type SettingValues,
  settingId,
} from "../config/settings.js";
import { InputError } from "../errors.js";

/** The option's property in commander's parsed options: `--harness-agent` -> `harnessAgent`. */
function attributeName(flag: string): string {
  return flag.slice(2).replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** Adds one option per listed setting (help text from the settings table). */
export function addSettingOptions(command: Command, ids: readonly SettingId[]): Command {
  for (const setting of SETTINGS) {
    if (!ids.includes(settingId(setting))) continue;
    const value = placeholderOf(setting);
    command.addOption(new Option(`${flagName(setting)} <${value}>`, optionHelp(setting)));
    if (settingId(setting) === "core.output_dir") command.option(`${OUT} <${value}>`, OUT_HELP);
  }
  return command;
}

/** The short name of `--output-dir`, on every command that writes a run. */
export const OUT = "--out";
export const OUT_HELP = "same as --output-dir";

function placeholderOf(setting: Setting): string {
  if (setting.placeholder !== undefined) return setting.placeholder;
  return setting.kind === "string" ? "TEXT" : setting.kind === "integer" ? "INT" : "NUM";
}

function optionHelp(setting: Setting): string {
  // Not commander's default(): a default value given as a flag would beat the env and the file.
  const fallback =
    setting.default === undefined ? "" : ` (default: ${JSON.stringify(setting.default)})`;
  return `${setting.help}${fallback} [env: ${envName(setting)}]`;
}

/** The flags the user gave, keyed like the settings table, for loadConfig (`--out` included). */
export function settingFlags(options: Record<string, unknown>): SettingValues {
  const values: SettingValues = {};
  for (const setting of SETTINGS) {
    const value = options[attributeName(flagName(setting))];
    if (typeof value === "string") values[settingId(setting)] = value;
  }
  const out = options[attributeName(OUT)];
  if (typeof out !== "string") return values;
  const outputDir = values["core.output_dir"];
  if (outputDir !== undefined && outputDir !== out) {
    throw new InputError("--out is another name for --output-dir: pass one of them");
  }
  return { ...values, "core.output_dir": out };
}

export const HARNESS_SETTINGS = [
  "harness.agent",
  "harness.model",
  "harness.reasoning_effort",
  "harness.timeout_seconds",
] as const satisfies readonly SettingId[];

export const RUN_SETTINGS = [
  "core.output_dir",
  "core.pass_threshold",
  "core.max_cost",
  "core.max_parallel_checks",
  "core.check_timeout_seconds",
  "core.samples",
  "core.shard",
  "core.python",
  "report.formats",
  ...HARNESS_SETTINGS,
] as const satisfies readonly SettingId[];

/** Options shared by list, validate and run. */
export function addDiscoveryOptions(command: Command): Command {
  return command
    .option("--check-dir <PATH>", "scan only this folder (relative to the project root)")
    .option("--cwd <PATH>", "working directory: where the config search starts", ".")
    .option(
      "--verbose",
      "print debug information to stderr (eb run: also list the checks that passed)",
    );
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

/** `--provenance-field KEY=VALUE`, split at the first `=` (the value may hold more). */
export function provenanceField(
  text: string,
  previous: [string, string][] = [],
): [string, string][] {
  const at = text.indexOf("=");
  if (at <= 0) throw new InputError(`--provenance-field must be key=value, got '${text}'`);
  return [...previous, [text.slice(0, at), text.slice(at + 1)]];
}

/** `--level`: the interval level, strictly between 0 and 1 (0.95 by default). */
export function intervalLevel(raw: string): number {
  const level = raw.trim() === "" ? Number.NaN : Number(raw);
  if (!(level > 0 && level < 1)) {
    throw new InputError(`--level ${raw}: expected a number between 0 and 1, such as 0.95`);
  }
  return level;
}
