import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parse as parseToml } from "smol-toml";
import { describe, expect, it } from "vitest";
import { resolveTemplate } from "../../src/agents/resolve.js";
import { type LoadConfigOptions, loadConfig } from "../../src/config/load.js";
import { InputError } from "../../src/errors.js";
import { makeProject, runEb } from "../helpers/project.js";

const DEFAULT_EXCLUDES = [
  ".git",
  ".hg",
  ".svn",
  ".venv",
  "venv",
  "node_modules",
  "__pycache__",
  "dist",
  "build",
];

const BUILTIN_AGENT_NAMES = ["codex", "claude", "gemini", "grok", "openhands", "opencode", "pi"];

/** A project whose config.toml holds `toml`; returns the root and the config path. */
function project(toml: string): { root: string; configPath: string } {
  const root = realpathSync(makeProject({ ".eval-banana/config.toml": toml }));
  return { root, configPath: path.join(root, ".eval-banana", "config.toml") };
}

/** Loads a config with an empty environment unless one is given. */
function load(cwd: string, options: Omit<LoadConfigOptions, "cwd"> = {}) {
  return loadConfig({ env: {}, ...options, cwd });
}

/** The InputError thrown by loading `toml` (fails the test when nothing is thrown). */
async function loadError(toml: string): Promise<{ message: string; configPath: string }> {
  const { root, configPath } = project(toml);
  const error: unknown = await load(root).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(InputError);
  return { message: (error as InputError).message, configPath };
}

describe("precedence: flag > env > file > default", () => {
  const toml = [
    "[core]",
    "pass_threshold = 0.5",
    "max_parallel_checks = 3",
    'output_dir = "from-file"',
    "[harness]",
    'agent = "claude"',
    'model = "file-model"',
    "timeout_seconds = 10",
    "",
  ].join("\n");
  const env = {
    EVAL_BANANA_PASS_THRESHOLD: "0.6",
    EVAL_BANANA_MAX_PARALLEL_CHECKS: "5",
    EVAL_BANANA_OUTPUT_DIR: "from-env",
    EVAL_BANANA_HARNESS_AGENT: "gemini",
    EVAL_BANANA_HARNESS_MODEL: "env-model",
    EVAL_BANANA_HARNESS_TIMEOUT_SECONDS: "20",
  };
  const flags = {
    "core.pass_threshold": "0.7",
    "core.max_parallel_checks": "6",
    "core.output_dir": "from-flag",
    "harness.agent": "opencode",
    "harness.model": "flag-model",
    "harness.timeout_seconds": "30",
  };

  it("a flag beats the environment and the file", async () => {
    const { root } = project(toml);
    const config = await load(root, { env, flags });
    expect(config.harness.agent).toBe("opencode");
    expect(config.harness.model).toBe("flag-model");
    expect(config.harness.timeoutSeconds).toBe(30);
    expect(config.passThreshold).toBe(0.7);
    expect(config.maxParallelChecks).toBe(6);
    expect(config.outputDir).toBe(path.join(root, "from-flag"));
    expect(config.outputDirFromFlag).toBe(true);
  });

  it("the environment beats the file", async () => {
    const { root } = project(toml);
    const config = await load(root, { env });
    expect(config.harness.agent).toBe("gemini");
    expect(config.harness.model).toBe("env-model");
    expect(config.harness.timeoutSeconds).toBe(20);
    expect(config.passThreshold).toBe(0.6);
    expect(config.maxParallelChecks).toBe(5);
    expect(config.outputDir).toBe(path.join(root, "from-env"));
    expect(config.outputDirFromFlag).toBe(false);
  });

  it("the file beats the defaults", async () => {
    const { root } = project(toml);
    const config = await load(root);
    expect(config.harness.agent).toBe("claude");
    expect(config.harness.model).toBe("file-model");
    expect(config.harness.timeoutSeconds).toBe(10);
    expect(config.passThreshold).toBe(0.5);
    expect(config.maxParallelChecks).toBe(3);
    expect(config.outputDir).toBe(path.join(root, "from-file"));
  });

  it("defaults apply when nothing is set", async () => {
    const { root } = project("");
    const config = await load(root);
    expect(config.harness.agent).toBeNull();
    expect(config.harness.model).toBeNull();
    expect(config.harness.reasoningEffort).toBeNull();
    expect(config.harness.timeoutSeconds).toBe(300);
    expect(config.passThreshold).toBe(1);
    expect(config.maxParallelChecks).toBe(4);
    expect(config.llmMaxInputChars).toBe(0);
    expect(config.outputDir).toBe(path.join(root, ".eval-banana", "results"));
    expect(config.excludeDirs).toEqual(DEFAULT_EXCLUDES);
    expect(config.harness.env).toEqual({});
    expect(config.agents).toEqual({});
    expect(config.warnings).toEqual([]);
  });

  it("empty EVAL_BANANA_* variables are treated as unset", async () => {
    const { root } = project(toml);
    const config = await load(root, {
      env: {
        EVAL_BANANA_HARNESS_AGENT: "",
        EVAL_BANANA_PASS_THRESHOLD: "",
        EVAL_BANANA_OUTPUT_DIR: "",
        EVAL_BANANA_MAX_PARALLEL_CHECKS: "",
      },
    });
    expect(config.harness.agent).toBe("claude");
    expect(config.passThreshold).toBe(0.5);
    expect(config.outputDir).toBe(path.join(root, "from-file"));
    expect(config.maxParallelChecks).toBe(3);
  });
});

describe("config file location and project root", () => {
  it("finds the config walking upward from a nested cwd; the project root holds .eval-banana", async () => {
    const { root, configPath } = project('[harness]\nagent = "pi"\n');
    const nested = path.join(root, "a", "b", "c");
    mkdirSync(nested, { recursive: true });
    const config = await load(nested);
    expect(config.configPath).toBe(configPath);
    expect(config.projectRoot).toBe(root);
    expect(config.harness.agent).toBe("pi");
  });

  it("the nearest config wins", async () => {
    const { root } = project('[harness]\nagent = "pi"\n');
    const inner = path.join(root, "inner");
    mkdirSync(path.join(inner, ".eval-banana"), { recursive: true });
    writeFileSync(path.join(inner, ".eval-banana", "config.toml"), '[harness]\nagent = "grok"\n');
    const config = await load(path.join(inner));
    expect(config.projectRoot).toBe(inner);
    expect(config.harness.agent).toBe("grok");
  });

  it("noProjectConfig ignores the file and uses cwd as the project root", async () => {
    const { root } = project('[llm]\nmodel = "x"\n[harness]\nagent = "pi"\n');
    const nested = path.join(root, "sub");
    mkdirSync(nested);
    const config = await load(nested, { noProjectConfig: true });
    expect(config.configPath).toBeNull();
    expect(config.projectRoot).toBe(nested);
    expect(config.harness.agent).toBeNull();
    expect(config.outputDir).toBe(path.join(nested, ".eval-banana", "results"));
  });

  it("a relative output_dir resolves against the project root, not the cwd", async () => {
    const { root } = project('[core]\noutput_dir = "out/runs"\n');
    const nested = path.join(root, "deep", "er");
    mkdirSync(nested, { recursive: true });
    const config = await load(nested);
    expect(config.outputDir).toBe(path.join(root, "out", "runs"));
    const fromEnv = await load(nested, { env: { EVAL_BANANA_OUTPUT_DIR: "env-out" } });
    expect(fromEnv.outputDir).toBe(path.join(root, "env-out"));
    const fromFlag = await load(nested, { flags: { "core.output_dir": "flag-out" } });
    expect(fromFlag.outputDir).toBe(path.join(root, "flag-out"));
  });

  it("an absolute output_dir is kept", async () => {
    const { root } = project("");
    const absolute = path.join(root, "elsewhere", "abs");
    const config = await load(root, { env: { EVAL_BANANA_OUTPUT_DIR: absolute } });
    expect(config.outputDir).toBe(absolute);
  });
});

describe("unknown keys are errors naming the key", () => {
  it("in [core]", async () => {
    const { message, configPath } = await loadError('[core]\noutput_dir = "x"\nfoo_bar = 1\n');
    expect(message).toContain(`${configPath}:3`);
    expect(message).toContain("[core]");
    expect(message).toContain("foo_bar");
  });

  it("at the top level", async () => {
    const { message, configPath } = await loadError('stray_key = "x"\n[core]\n');
    expect(message).toContain(`${configPath}:1`);
    expect(message).toContain("stray_key");
  });

  it("in [discovery]", async () => {
    const { message, configPath } = await loadError("[discovery]\nexclude = []\n");
    expect(message).toContain(configPath);
    expect(message).toContain("[discovery]");
    expect(message).toContain("exclude");
  });

  it("in [harness]", async () => {
    const { message, configPath } = await loadError('[harness]\nagent = "pi"\nmodle = "x"\n');
    expect(message).toContain(`${configPath}:3`);
    expect(message).toContain("[harness]");
    expect(message).toContain("modle");
  });

  it("in [agents.x], naming the section as [agents.x]", async () => {
    const { message, configPath } = await loadError(
      '[agents.myagent]\ncommand = ["my-cli"]\ncomand_typo = 1\n',
    );
    expect(message).toContain(`${configPath}:3`);
    expect(message).toContain("comand_typo");
    expect(message).toContain("[agents.myagent]");
  });
});

describe("wrong values are errors naming the key", () => {
  it.each([
    ['[core]\npass_threshold = "high"\n', "pass_threshold", 2],
    ["[core]\nmax_parallel_checks = 0\n", "max_parallel_checks", 2],
    ["[core]\nmax_parallel_checks = 1.5\n", "max_parallel_checks", 2],
    ["[harness]\ntimeout_seconds = -1\n", "timeout_seconds", 2],
    ['[discovery]\nexclude_dirs = "x"\n', "exclude_dirs", 2],
    ["[discovery]\nexclude_dirs = [1, 2]\n", "exclude_dirs", 2],
    ["[core]\npass_threshold = 1.5\n", "pass_threshold", 2],
    ["[core]\npass_threshold = -0.1\n", "pass_threshold", 2],
    ["[core]\n\n# comment\npass_threshold = 2\n", "pass_threshold", 4],
    ["[harness]\nagent = 5\n", "agent", 2],
    ["[core]\nllm_max_input_chars = -1\n", "llm_max_input_chars", 2],
  ])("%j names %s at its line", async (toml, key, line) => {
    const { message, configPath } = await loadError(toml);
    expect(message).toContain(`${configPath}:${line}`);
    expect(message).toContain(key);
  });

  it("pass_threshold 0 and 1 are accepted", async () => {
    const zero = project("[core]\npass_threshold = 0\n");
    expect((await load(zero.root)).passThreshold).toBe(0);
    const one = project("[core]\npass_threshold = 1\n");
    expect((await load(one.root)).passThreshold).toBe(1);
    const half = project("[core]\npass_threshold = 0.25\n");
    expect((await load(half.root)).passThreshold).toBe(0.25);
  });

  it("a pass_threshold flag outside 0..1 is rejected, naming the option", async () => {
    const { root } = project("");
    const error: unknown = await load(root, { flags: { "core.pass_threshold": "2" } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toContain("--pass-threshold");
  });

  it.each([
    ["EVAL_BANANA_PASS_THRESHOLD", "abc"],
    ["EVAL_BANANA_PASS_THRESHOLD", "1.5"],
    ["EVAL_BANANA_MAX_PARALLEL_CHECKS", "2.5"],
    ["EVAL_BANANA_MAX_PARALLEL_CHECKS", "0"],
    ["EVAL_BANANA_HARNESS_TIMEOUT_SECONDS", "soon"],
    ["EVAL_BANANA_LLM_MAX_INPUT_CHARS", "x"],
  ])("%s=%s is an InputError naming the variable", async (name, value) => {
    const { root } = project("");
    const error: unknown = await load(root, { env: { [name]: value } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).message).toContain(name);
  });

  it("[harness.env] must hold string values", async () => {
    const { message, configPath } = await loadError('[harness.env]\nGOOD = "x"\nBAD = 1\n');
    expect(message).toContain(`${configPath}:3`);
    expect(message).toContain("BAD");
  });

  it("[harness.env] string values are loaded", async () => {
    const { root } = project('[harness.env]\nMY_VAR = "value"\n');
    expect((await load(root)).harness.env).toEqual({ MY_VAR: "value" });
  });

  it("[agents.x] prompt_position must be tail, after_command or stdin", async () => {
    const { message, configPath } = await loadError(
      '[agents.x]\ncommand = ["x"]\nprompt_position = "middle"\n',
    );
    expect(message).toContain(`${configPath}:3`);
    expect(message).toContain("prompt_position");
    expect(message).toContain("'tail', 'after_command' or 'stdin'");
  });

  it("[agents.x] list fields must be lists of strings", async () => {
    const { message } = await loadError('[agents.x]\ncommand = "x"\n');
    expect(message).toContain("command");
  });

  it('an empty string in [agents.codex] model_flag = "" clears it to null', async () => {
    const { root } = project('[agents.codex]\nmodel_flag = ""\ndefault_model = "m1"\n');
    const config = await load(root);
    expect(config.agents.codex?.model_flag).toBeNull();
    expect(config.agents.codex?.default_model).toBe("m1");
    const template = resolveTemplate("codex", config.agents);
    expect(template.modelFlag).toBeNull();
    expect(template.defaultModel).toBe("m1");
    expect(template.command).toEqual(["codex", "exec"]);
  });

  it("exclude_dirs replaces the default list", async () => {
    const { root } = project('[discovery]\nexclude_dirs = ["only_this"]\n');
    expect((await load(root)).excludeDirs).toEqual(["only_this"]);
    const empty = project("[discovery]\nexclude_dirs = []\n");
    expect((await load(empty.root)).excludeDirs).toEqual([]);
  });
});

describe("custom agents need a command", () => {
  const builtins = BUILTIN_AGENT_NAMES.join(", ");

  it.each([
    ['[harness]\nagent = "codex"\n\n[agents.myagent]\nprompt_flag = "--prompt"\n', 4],
    ['[agents.myagent.provider_env]\nKEY = "{env:OPENAI_API_KEY}"\n', 1],
    ['[agents]\nmyagent = { prompt_flag = "--prompt" }\n', 2],
  ])("%j is an error at its line, even when no check uses the agent", async (toml, line) => {
    const { message, configPath } = await loadError(toml);
    expect(message).toContain(
      `\n  ${configPath}:${line}: [agents.myagent] command is required for a custom agent ` +
        `(a list such as ["my-cli", "run"]); built-in agents are: ${builtins}`,
    );
  });

  it("a custom agent with a command loads", async () => {
    const { root } = project('[agents.myagent]\ncommand = ["my-cli", "run"]\n');
    expect((await load(root)).agents.myagent?.command).toEqual(["my-cli", "run"]);
  });

  it("a built-in agent may be overridden without a command", async () => {
    const { root } = project('[agents.claude]\nshared_flags = ["-p"]\n');
    const config = await load(root);
    expect(resolveTemplate("claude", config.agents).command).toEqual(["claude"]);
  });
});

describe("legacy keys", () => {
  it("[llm] is an error with the migration message", async () => {
    const { message, configPath } = await loadError('[llm]\nmodel = "gpt"\n');
    expect(message).toContain(configPath);
    expect(message).toContain("Legacy [llm] section was removed");
  });

  it("[harness] skip is an error with the migration message", async () => {
    const { message, configPath } = await loadError('[harness]\nskip = true\nagent = "pi"\n');
    expect(message).toContain(configPath);
    expect(message).toContain("skip was removed");
  });

  it("[harness] skills_dir warns and is ignored", async () => {
    const { root, configPath } = project('[harness]\nagent = "pi"\nskills_dir = "skills"\n');
    const config = await load(root);
    expect(config.harness.agent).toBe("pi");
    expect(config.warnings).toHaveLength(1);
    expect(config.warnings[0]).toContain(configPath);
    expect(config.warnings[0]).toContain("skills_dir");
  });

  it("stale [core] *_timeout_seconds keys warn and are ignored", async () => {
    const { root, configPath } = project(
      [
        "[core]",
        "deterministic_timeout_seconds = 5",
        "llm_timeout_seconds = 6",
        "task_timeout_seconds = 7",
        "pass_threshold = 0.5",
        "",
      ].join("\n"),
    );
    const config = await load(root);
    expect(config.passThreshold).toBe(0.5);
    expect(config.warnings).toHaveLength(3);
    for (const [index, key] of [
      "deterministic_timeout_seconds",
      "llm_timeout_seconds",
      "task_timeout_seconds",
    ].entries()) {
      expect(config.warnings[index]).toContain(configPath);
      expect(config.warnings[index]).toContain(key);
    }
  });
});

describe("TOML syntax errors", () => {
  it("name file:line:col", async () => {
    const { message, configPath } = await loadError("[core]\n\npass_threshold = \n");
    expect(message).toMatch(new RegExp(`${escapeRegExp(configPath)}:3:\\d+`));
  });

  it("an unclosed table header is located", async () => {
    const { message, configPath } = await loadError('[core]\noutput_dir = "x"\n[harness\n');
    expect(message).toMatch(new RegExp(`${escapeRegExp(configPath)}:3:\\d+`));
  });
});

describe("eb init", () => {
  it("writes a config that loads, refuses to overwrite, and --force overwrites", async () => {
    const root = realpathSync(makeProject());
    const target = path.join(root, "fresh");
    mkdirSync(target);
    const file = path.join(target, ".eval-banana", "config.toml");

    const first = await runEb(["init", "--cwd", target]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("Wrote");
    expect(first.stdout).toContain(file);
    const template = readFileSync(file, "utf8");

    const config = await load(target);
    expect(config.configPath).toBe(file);
    expect(config.projectRoot).toBe(target);
    expect(config.warnings).toEqual([]);
    const parsed = parseToml(template) as { harness?: { agent?: unknown } };
    expect(BUILTIN_AGENT_NAMES).toContain(parsed.harness?.agent);
    expect(BUILTIN_AGENT_NAMES).toContain(config.harness.agent);

    writeFileSync(file, "# mine\n");
    const second = await runEb(["init", "--cwd", target]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain(file);
    expect(readFileSync(file, "utf8")).toBe("# mine\n");

    const forced = await runEb(["init", "--cwd", target, "--force"]);
    expect(forced.code).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(template);
  });
});

describe("eb init, a first run that teaches", () => {
  it("writes an example check that passes, ignores run folders, and says what to do next", async () => {
    const root = realpathSync(makeProject());
    const target = path.join(root, "fresh");
    mkdirSync(target);
    writeFileSync(path.join(target, ".gitignore"), "node_modules/");
    const init = await runEb(["init", "--cwd", target]);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(path.join(target, "eval_checks", "example.yaml"));
    expect(init.stdout).toContain("npx eb run");
    expect(readFileSync(path.join(target, ".gitignore"), "utf8")).toBe(
      "node_modules/\n.eval-banana/results/\n.eval-banana/cache/\n",
    );
    const run = await runEb(["run", "--cwd", target]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Score: 1/1");

    // Again with --force: no second example, no second .gitignore entry.
    const again = await runEb(["init", "--cwd", target, "--force"]);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("example.yaml");
    expect(readFileSync(path.join(target, ".gitignore"), "utf8").match(/results/g)).toHaveLength(1);
  });
});

function escapeRegExp(text: string): string {
  return text.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("[pricing]", () => {
  it("splits token prices from a judge run's per_run price", async () => {
    const { root } = project(
      '[pricing."api-m"]\ninput_per_mtok = 1\noutput_per_mtok = 2\n[pricing."judge-m"]\nper_run = 0.3\n[pricing."both-m"]\ninput_per_mtok = 1\noutput_per_mtok = 2\nper_run = 0.5\n',
    );
    const config = await loadConfig({ cwd: root, env: {} });
    expect(config.pricing).toEqual({
      "api-m": { input_per_mtok: 1, output_per_mtok: 2 },
      "both-m": { input_per_mtok: 1, output_per_mtok: 2 },
    });
    expect(config.runPrices).toEqual({ "judge-m": 0.3, "both-m": 0.5 });
  });

  it("refuses half a token price, or an entry with no price", async () => {
    for (const entry of ["input_per_mtok = 1", ""]) {
      const { root } = project(`[pricing."m"]\n${entry}\n`);
      await expect(loadConfig({ cwd: root, env: {} })).rejects.toThrow(
        "[pricing] m: give both input_per_mtok and output_per_mtok",
      );
    }
  });
});
