import { realpathSync } from "node:fs";
import { Command } from "commander";
import { parse as parseToml } from "smol-toml";
import { describe, expect, expectTypeOf, it } from "vitest";
import { addSettingOptions, RUN_SETTINGS, settingFlags } from "../../src/cli/options.js";
import { loadConfig } from "../../src/config/load.js";
import {
  flagName,
  SETTINGS,
  type Setting,
  type SettingId,
  type SettingValue,
  type SettingValues,
  settingId,
} from "../../src/config/settings.js";
import { CONFIG_TEMPLATE } from "../../src/config/template.js";
import { makeProject } from "../helpers/project.js";

describe("setting ids", () => {
  it("a misspelt or mixed-up id does not compile", () => {
    // @ts-expect-error: no such key
    const misspelt: SettingId = "core.output_dri";
    // @ts-expect-error: agent is a key of [harness], not of [core]
    const crossed: SettingId = "core.agent";
    // @ts-expect-error: loadConfig's flags are keyed by id
    const flags: SettingValues = { "eval.wrokers": "3" };
    // @ts-expect-error: a command exposes settings by id
    addSettingOptions(new Command(), ["harness.agnet"]);
    expect([misspelt, crossed, Object.keys(flags)]).toBeDefined();
  });

  it("a loaded value is typed by kind, and may be unset only without a default", () => {
    expectTypeOf<SettingValue<"core.output_dir">>().toEqualTypeOf<string>();
    expectTypeOf<SettingValue<"eval.max_workers">>().toEqualTypeOf<number>();
    expectTypeOf<SettingValue<"eval.workers">>().toEqualTypeOf<number | undefined>();
    expectTypeOf<SettingValue<"harness.agent">>().toEqualTypeOf<string | undefined>();
    expectTypeOf<SettingValue<"eval.pass_threshold">>().toEqualTypeOf<number>();
    // @ts-expect-error: the id is checked here too, as in loadConfig's lookups
    expectTypeOf<SettingValue<"core.output_dri">>().toEqualTypeOf<string>();
  });
});

describe("flag names", () => {
  it("are --harness-<key> for [harness] and --<key> otherwise", () => {
    const flags = Object.fromEntries(SETTINGS.map((s) => [settingId(s), flagName(s)]));
    expect(flags).toEqual({
      "core.output_dir": "--output-dir",
      "core.pass_threshold": "--pass-threshold",
      "core.max_parallel_checks": "--max-parallel-checks",
      "core.check_timeout_seconds": "--check-timeout-seconds",
      "core.samples": "--samples",
      "core.shard": "--shard",
      "core.max_cost": "--max-cost",
      "core.python": "--python",
      "core.llm_max_input_chars": "--llm-max-input-chars",
      "harness.agent": "--harness-agent",
      "harness.model": "--harness-model",
      "harness.reasoning_effort": "--harness-reasoning-effort",
      "harness.timeout_seconds": "--harness-timeout-seconds",
      "eval.api_base": "--api-base",
      "eval.judge": "--judge",
      "eval.judge_samples": "--judge-samples",
      "eval.judge_temperature": "--judge-temperature",
      "eval.workers": "--workers",
      "eval.timeout_seconds": "--timeout-seconds",
      "eval.max_retries": "--max-retries",
      "eval.max_retry_wait_seconds": "--max-retry-wait-seconds",
      "eval.max_workers": "--max-workers",
      "eval.max_cost": "--max-cost",
      "eval.max_response_mb": "--max-response-mb",
      "eval.cache_dir": "--cache-dir",
      "eval.pass_threshold": "--pass-threshold",
      "report.formats": "--report-formats",
      "report.scope": "--scope",
    });
  });

  it("what commander parses is read back under the setting's id", () => {
    const command = addSettingOptions(new Command().exitOverride(), RUN_SETTINGS);
    command.parse(["--harness-reasoning-effort", "low", "--max-parallel-checks", "2"], {
      from: "user",
    });
    expect(settingFlags(command.opts())).toEqual({
      "harness.reasoning_effort": "low",
      "core.max_parallel_checks": "2",
    });
  });
});

describe("the eb init template", () => {
  const toml = parseToml(CONFIG_TEMPLATE) as Record<string, Record<string, unknown>>;

  const written: readonly Setting[] = SETTINGS.filter((s: Setting) => s.template !== false);

  it("leaves out the settings that have no effect", () => {
    const left = SETTINGS.filter((s: Setting) => s.template === false);
    expect(left.map((s) => `${s.section}.${s.key}`)).toEqual(["core.llm_max_input_chars"]);
    for (const setting of left) {
      expect(CONFIG_TEMPLATE).not.toContain(setting.key);
    }
  });

  it("has a commented [pricing] example, of token prices and of a judge run", () => {
    const lines = CONFIG_TEMPLATE.split("\n");
    expect(lines).toContain('# [pricing."gpt-4.1-mini"]');
    expect(lines).toContain("# per_run = 0.25");
    const example = lines
      .filter((line) => /^# (\[pricing|input_per|output_per|per_run)/.test(line))
      .map((line) => line.slice(2))
      .join("\n");
    expect(parseToml(example)).toEqual({
      pricing: {
        "gpt-4.1-mini": { input_per_mtok: 0.4, output_per_mtok: 1.6 },
        "gpt-5.6-sol": { per_run: 0.25 },
      },
    });
  });

  it.each(written.map((s): [string, Setting] => [`${s.section}.${s.key}`, s]))(
    "explains %s and writes its value or example",
    (_, setting) => {
      const written = setting.init ?? setting.default;
      const line =
        written === undefined
          ? `# ${setting.key} = ${JSON.stringify(setting.example)}`
          : `${setting.key} = ${JSON.stringify(written)}`;
      const lines = CONFIG_TEMPLATE.split("\n");
      const index = lines.indexOf(line, lines.indexOf(`[${setting.section}]`));
      expect(index, line).toBeGreaterThan(0);
      expect(lines[index - 1]).toMatch(/^# \S/);
      expect(toml[setting.section]?.[setting.key]).toBe(written);
    },
  );

  it("loads to the defaults, with the agent it names", async () => {
    const root = realpathSync(makeProject({ ".eval-banana/config.toml": CONFIG_TEMPLATE }));
    const fromTemplate = await loadConfig({ cwd: root, env: {} });
    const fromNothing = await loadConfig({ cwd: root, env: {}, noProjectConfig: true });
    expect(fromTemplate.harness.agent).toBe("codex");
    expect({
      ...fromTemplate,
      configPath: null,
      harness: { ...fromTemplate.harness, agent: null },
    }).toEqual(fromNothing);
  });
});

describe("[report] scope", () => {
  it("is the cases scope unless a flag, the environment or the file says population", async () => {
    const root = realpathSync(
      makeProject({ ".eval-banana/config.toml": '[report]\nscope = "population"\n' }),
    );
    expect((await loadConfig({ cwd: root, env: {}, noProjectConfig: true })).scope).toBe("cases");
    expect((await loadConfig({ cwd: root, env: {} })).scope).toBe("population");
    const fromEnv = await loadConfig({ cwd: root, env: { EVAL_BANANA_SCOPE: "cases" } });
    expect(fromEnv.scope).toBe("cases");
    const fromFlag = await loadConfig({ cwd: root, env: {}, flags: { "report.scope": "cases" } });
    expect(fromFlag.scope).toBe("cases");
    await expect(loadConfig({ cwd: root, env: { EVAL_BANANA_SCOPE: "these" } })).rejects.toThrow(
      /cases or population/,
    );
  });
});
