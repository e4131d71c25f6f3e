import type { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { OUT, OUT_HELP } from "../../src/cli/options.js";
import { program } from "../../src/cli/program.js";
import { envName, flagName, SETTINGS, type Setting } from "../../src/config/settings.js";

/** Every command of eb with its options, by name. */
function commands(): Map<string, readonly Option[]> {
  const all = new Map<string, readonly Option[]>();
  const walk = (command: Command, prefix: string) => {
    for (const sub of command.commands) {
      const name = `${prefix}${sub.name()}`;
      all.set(name, sub.options);
      walk(sub, `${name} `);
    }
  };
  walk(program, "");
  return all;
}

const table: readonly Setting[] = SETTINGS;
const settingId = (setting: Setting) => `${setting.section}.${setting.key}`;

/** The settings a flag sets, in the table's order. */
function settingsOf(flag: string | undefined): Setting[] {
  return table.filter((setting) => flagName(setting) === flag);
}

/** What a setting's option says in --help: the table's help, its default, its variable. */
function helpOf(setting: Setting): string {
  const fallback =
    setting.default === undefined ? "" : ` (default: ${JSON.stringify(setting.default)})`;
  const env = envName(setting);
  return `${setting.help}${fallback}${env === undefined ? "" : ` [env: ${env}]`}`;
}

describe("one setting, one flag, one variable, one meaning", () => {
  it("settings that share a flag share its variable, kind and help", () => {
    const mismatched = [...new Set(table.map(flagName))].flatMap((flag) => {
      const [first, ...others] = settingsOf(flag);
      return others
        .filter(
          (other) =>
            envName(other) !== envName(first!) ||
            other.kind !== first!.kind ||
            other.help !== first!.help,
        )
        .map((other) => `${flag}: ${settingId(first!)} and ${settingId(other)} differ`);
    });
    expect(mismatched).toEqual([]);
  });

  it("every command's option named like a setting is that setting, as the table says it", () => {
    const wrong = [...commands()].flatMap(([command, options]) =>
      options.flatMap((option) => {
        const settings = settingsOf(option.long);
        if (settings.length === 0) return [];
        const help = settings.map(helpOf);
        return help.includes(option.description)
          ? []
          : [`eb ${command} ${option.long}: "${option.description}", not "${help[0]}"`];
      }),
    );
    expect(wrong).toEqual([]);
  });

  it("no option outside the table names a variable of eb", () => {
    const wrong = [...commands()].flatMap(([command, options]) =>
      options
        .filter((option) => settingsOf(option.long).length === 0)
        .filter((option) => option.description.includes("[env:"))
        .map((option) => `eb ${command} ${option.long}`),
    );
    expect(wrong).toEqual([]);
  });

  it("every setting that does something has its flag on some command", () => {
    const flags = new Set(
      [...commands().values()].flatMap((options) => options.map((o) => o.long)),
    );
    const missing = table
      .filter((setting) => setting.template !== false && !flags.has(flagName(setting)))
      .map(settingId);
    expect(missing).toEqual([]);
  });

  it("every command that writes a run takes --output-dir and --out, one the other's alias", () => {
    const writers = [...commands()].filter(([, options]) =>
      options.some((o) => ["--output-dir", OUT, "--flat-output"].includes(o.long ?? "")),
    );
    expect(writers.map(([name]) => name).sort()).toEqual([
      "eval",
      "merge",
      "pairwise",
      "run",
      "skill run",
    ]);
    const wrong = writers.flatMap(([command, options]) => {
      const outputDir = options.find((o) => o.long === "--output-dir");
      const out = options.find((o) => o.long === OUT);
      return outputDir && out?.description === OUT_HELP
        ? []
        : [`eb ${command}: --output-dir ${outputDir ? "yes" : "no"}, --out ${out ? "yes" : "no"}`];
    });
    expect(wrong).toEqual([]);
  });
});
