import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject, newestRun, runEb, writeFile } from "../helpers/project.js";

const FAKE = path.resolve(import.meta.dirname, "../fixtures/agents/fake-agent.mjs");
const AGENTS = ["codex", "claude", "gemini", "grok", "openhands", "opencode", "pi"] as const;

interface AgentCall {
  name: string;
  args: string[];
  stdin: string | null;
  env: Record<string, string>;
  stdinIsPipe: boolean;
  cwd: string;
}
interface JudgeResult {
  check_id: string;
  status: string;
  reason: string | null;
  error_detail: string | null;
  exit_code: number | null;
  details: Record<string, unknown>;
}

const JUDGE_YAML = [
  "schema_version: 1",
  "id: judge",
  "type: harness_judge",
  "description: The summary is accurate.",
  "instructions: |",
  "  Read summary.txt. Score 1 if accurate, 0 otherwise.",
  "",
].join("\n");

/** A project with one judge check and fake agent CLIs (all seven names) first on PATH. */
function judgeProject(config: string, extraFiles: Record<string, string> = {}) {
  const project = makeProject({
    ".eval-banana/config.toml": config,
    "eval_checks/judge.yaml": JUDGE_YAML,
    ...extraFiles,
  });
  const bin = path.join(project, "fake-bin");
  mkdirSync(bin);
  for (const name of AGENTS) {
    const wrapper = writeFile(
      project,
      `fake-bin/${name}`,
      `#!/bin/sh\nFAKE_AGENT_NAME=${name} exec "${process.execPath}" "${FAKE}" "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
  }
  const log = path.join(project, "agent-calls.jsonl");
  const env = (extra: Record<string, string> = {}) => ({
    PATH: `${bin}:${process.env.PATH}`,
    FAKE_AGENT_LOG: log,
    ...extra,
  });
  const calls = (): AgentCall[] =>
    existsSync(log)
      ? readFileSync(log, "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as AgentCall)
      : [];
  const result = (): { check: JudgeResult; runDir: string } => {
    const results = path.join(project, ".eval-banana/results");
    const runDir = newestRun(results);
    const report = JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as {
      checks: JudgeResult[];
    };
    return { check: report.checks[0]!, runDir };
  };
  return { project, env, calls, result };
}

function promptFile(runDir: string): string {
  const name = readdirSync(path.join(runDir, "checks")).find((f) => f.endsWith(".prompt.txt"))!;
  return readFileSync(path.join(runDir, "checks", name), "utf8");
}

/** Exact argv of each built-in template, with a model and an effort where it can carry them. */
const EXPECTED_ARGV: Record<
  (typeof AGENTS)[number],
  { config: string; argv: (p: string) => string[]; promptOnStdin?: boolean }
> = {
  codex: {
    config: 'model = "m1"\nreasoning_effort = "low"',
    argv: (p) => [
      "exec",
      "--dangerously-bypass-approvals-and-sandbox",
      "--skip-git-repo-check",
      "--model",
      "m1",
      "-c",
      "model_reasoning_effort=low",
      p,
    ],
  },
  claude: {
    config: 'model = "m1"\nreasoning_effort = "high"',
    argv: (p) => ["-p", "--dangerously-skip-permissions", "--model", "m1", "--effort", "high", p],
  },
  gemini: {
    config: 'model = "m1"',
    argv: (p) => ["--approval-mode", "yolo", "--skip-trust", "--model", "m1", "-p", p],
  },
  grok: {
    config: 'model = "m1"\nreasoning_effort = "high"',
    argv: (p) => [
      "--always-approve",
      "--no-auto-update",
      "--output-format",
      "plain",
      "--model",
      "m1",
      "--reasoning-effort",
      "high",
      "-p",
      p,
    ],
  },
  openhands: {
    config: 'model = "openai/m1"',
    argv: (p) => ["--headless", "--override-with-envs", "-t", p],
  },
  opencode: {
    config: 'model = "mock/m1"\nreasoning_effort = "max"',
    // `opencode run` mangles quotes in a prompt argument, so the prompt goes to stdin.
    argv: () => ["run", "-m", "mock/m1", "--variant", "max"],
    promptOnStdin: true,
  },
  pi: {
    config: 'model = "mock/m1"\nreasoning_effort = "low"',
    argv: (p) => ["-p", "--no-session", "--model", "mock/m1", "--thinking", "low", p],
  },
};

describe("harness_judge with the built-in agent templates", () => {
  for (const agent of AGENTS) {
    it(`${agent}: runs the exact argv with stdin closed and the seed's environment`, async () => {
      const spec = EXPECTED_ARGV[agent];
      const fake = judgeProject(`[harness]\nagent = "${agent}"\n${spec.config}\n`);
      const mode = agent === "openhands" ? "openhands" : "plain";
      const run = await runEb(["run", "--cwd", fake.project], {
        env: fake.env({ FAKE_AGENT_MODE: mode }),
      });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      const [call] = fake.calls();
      const { check, runDir } = fake.result();
      const prompt = promptFile(runDir);
      expect(call!.args).toEqual(spec.argv(prompt));
      expect(call!.stdinIsPipe).toBe(spec.promptOnStdin === true);
      if (spec.promptOnStdin) expect(call!.stdin).toBe(prompt);
      expect(call!.cwd).toBe(fake.project);
      expect(call!.env).toMatchObject({
        CI: "1",
        PYTHONUNBUFFERED: "1",
        EVAL_BANANA_PROJECT_ROOT: fake.project,
        EVAL_BANANA_HARNESS_AGENT: agent,
      });
      expect(check).toMatchObject({ status: "passed", reason: "looks right", exit_code: 0 });
      expect(check.details).toMatchObject({ agent_type: agent, timeout_seconds: 300 });
      expect(check.details.raw_response_path).toMatch(/^checks\/judge-[0-9a-f]{64}\.stdout\.txt$/);
      expect(
        readFileSync(path.join(runDir, check.details.raw_response_path as string), "utf8"),
      ).toContain('"score": 1');
    });
  }

  it("claude gets IS_SANDBOX=1 when run as root and the model in its environment", async () => {
    const fake = judgeProject('[harness]\nagent = "claude"\nmodel = "opus-x"\n');
    await runEb(["run", "--cwd", fake.project], { env: fake.env() });
    const [call] = fake.calls();
    expect(call!.env.ANTHROPIC_MODEL).toBe("opus-x");
    expect(call!.env.ANTHROPIC_DEFAULT_OPUS_MODEL).toBe("opus-x");
    expect(call!.env.IS_SANDBOX).toBe(process.getuid?.() === 0 ? "1" : undefined);
  });

  it("openhands gets the model through LLM_MODEL and a wide COLUMNS", async () => {
    const fake = judgeProject('[harness]\nagent = "openhands"\nmodel = "openai/m1"\n');
    await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ FAKE_AGENT_MODE: "openhands" }),
    });
    const [call] = fake.calls();
    expect(call!.env.LLM_MODEL).toBe("openai/m1");
    expect(call!.env.COLUMNS).toBe("10000");
    expect(fake.result().check.details).toMatchObject({ model: "openai/m1" });
  });

  it("codex uses its default model and effort when none is configured", async () => {
    const fake = judgeProject('[harness]\nagent = "codex"\n');
    await runEb(["run", "--cwd", fake.project], { env: fake.env() });
    const [call] = fake.calls();
    expect(call!.args).toContain("gpt-5.6-sol");
    expect(call!.args).toContain("model_reasoning_effort=high");
    expect(fake.result().check.details).toMatchObject({
      model: "gpt-5.6-sol",
      reasoning_effort: "high",
    });
  });
});

describe("harness_judge verdicts and failures", () => {
  it("writes the prompt first: description before instructions, no valid verdict in it", async () => {
    const fake = judgeProject('[harness]\nagent = "pi"\n');
    const run = await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ FAKE_AGENT_MODE: "echo-prompt" }),
    });
    const { check, runDir } = fake.result();
    const prompt = promptFile(runDir);
    const description = prompt.indexOf("The summary is accurate.");
    expect(description).toBeGreaterThan(-1);
    expect(prompt.indexOf("Read summary.txt.")).toBeGreaterThan(description);
    expect(prompt).toContain('"score"');
    // An agent that only echoes the prompt must not pass.
    expect(check.status).toBe("error");
    expect(run.code).toBe(1);
  });

  it("a score of 0 is a failure with the judge's reason in every report", async () => {
    const fake = judgeProject('[harness]\nagent = "gemini"\n');
    const run = await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ FAKE_AGENT_VERDICT: '{"score": 0, "reason": "it invents a number"}' }),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("- judge: failed - it invents a number");
    const { check, runDir } = fake.result();
    expect(check).toMatchObject({ status: "failed", reason: "it invents a number" });
    const markdown = readFileSync(path.join(runDir, "report.md"), "utf8");
    expect(markdown).toContain("Reason: `it invents a number`");
    expect(markdown).toMatch(
      /\| `judge` \| `harness_judge` \| `failed` \| 0 \| \d+ \| `it invents a number` \|/,
    );
  });

  it("a non-zero exit is an error even with a passing verdict on stdout", async () => {
    const fake = judgeProject('[harness]\nagent = "claude"\n');
    const run = await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ FAKE_AGENT_MODE: "nonzero-with-verdict" }),
    });
    expect(run.code).toBe(1);
    const { check } = fake.result();
    expect(check).toMatchObject({ status: "error", exit_code: 1 });
    expect(check.error_detail).toContain("exited with code 1");
    expect(check.error_detail).toContain("API Error: 500");
  });

  it("no verdict on stdout is an error with the seed's message, how stdout ends and where it is", async () => {
    const fake = judgeProject('[harness]\nagent = "grok"\n');
    const run = await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ FAKE_AGENT_MODE: "no-verdict" }),
    });
    const { check, runDir } = fake.result();
    const file = check.details.raw_response_path as string;
    const detail = `Harness judge output did not contain a valid JSON verdict with "score": 0 or 1. Its stdout ends with "I could not decide."; all of it is in ${file}.`;
    expect(check).toMatchObject({ status: "error", error_detail: detail, reason: detail });
    expect(readFileSync(path.join(runDir, file), "utf8")).toBe("I could not decide.\n");
    expect(run.stdout).toContain(`- judge: error - ${detail}`);
    expect(readFileSync(path.join(runDir, "report.md"), "utf8")).toContain(`| \`${detail}\` |`);
  });

  it("a score 0 verdict without a reason fails saying so, and where the output is", async () => {
    const fake = judgeProject('[harness]\nagent = "claude"\n');
    await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ FAKE_AGENT_VERDICT: '{"score": 0}' }),
    });
    const { check } = fake.result();
    expect(check).toMatchObject({
      status: "failed",
      reason: `the judge scored 0 without a reason (its output: ${check.details.raw_response_path})`,
    });
  });

  it("a long no-verdict output is quoted by its end", async () => {
    const fake = judgeProject('[harness]\nagent = "claude"\n');
    await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ FAKE_AGENT_MODE: "echo-prompt" }),
    });
    const { check } = fake.result();
    expect(check.status).toBe("error");
    // Its last 60 characters, newlines escaped: the end of the prompt it echoed.
    expect(check.error_detail).toMatch(
      /Its stdout ends with "…[^"]*0 otherwise\."; all of it is in checks\//,
    );
  });

  it("a hanging agent is killed at the harness timeout and recorded as an error", async () => {
    const fake = judgeProject('[harness]\nagent = "codex"\ntimeout_seconds = 1\n');
    const started = Date.now();
    const run = await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ FAKE_AGENT_MODE: "hang" }),
    });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.code).toBe(1);
    const { check, runDir } = fake.result();
    expect(check.error_detail).toBe("Harness judge subprocess timed out after 1 seconds");
    expect(check.details.timeout_seconds).toBe(1);
    expect(promptFile(runDir)).toContain("Read summary.txt.");
  });

  it("finds the verdict inside a stream-json wrapper of a custom template", async () => {
    const fake = judgeProject(
      '[harness]\nagent = "claude"\n[agents.claude]\nshared_flags = ["-p", "--output-format", "stream-json", "--verbose"]\n',
    );
    const run = await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ FAKE_AGENT_MODE: "claude-stream-json" }),
    });
    expect(run.code).toBe(0);
    expect(fake.calls()[0]!.args.slice(0, 4)).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
    ]);
    expect(fake.result().check.reason).toBe("looks right");
  });

  it("a per-check model beats --harness-model", async () => {
    const fake = judgeProject('[harness]\nagent = "pi"\nmodel = "from-config"\n', {
      "eval_checks/judge.yaml": `${JUDGE_YAML}model: from-check\n`,
    });
    await runEb(["run", "--cwd", fake.project, "--harness-model", "from-flag"], {
      env: fake.env(),
    });
    expect(fake.calls()[0]!.args).toContain("from-check");
    expect(fake.result().check.details.model).toBe("from-check");
  });

  it("an effort the template cannot carry is an error before launch", async () => {
    const fake = judgeProject('[harness]\nagent = "gemini"\nreasoning_effort = "high"\n');
    const run = await runEb(["run", "--cwd", fake.project], { env: fake.env() });
    expect(run.code).toBe(1);
    expect(fake.calls()).toEqual([]);
    const { check, runDir } = fake.result();
    expect(check.status).toBe("error");
    expect(check.error_detail).toContain("no reasoning-effort flag");
    expect(check.details.reasoning_effort).toBeNull();
    expect(readdirSync(path.join(runDir, "checks")).some((f) => f.endsWith(".prompt.txt"))).toBe(
      false,
    );
  });

  it("a model the template cannot carry is an error before launch", async () => {
    const fake = judgeProject(
      '[harness]\nagent = "pi"\nmodel = "m"\n[agents.pi]\nmodel_flag = ""\n',
    );
    await runEb(["run", "--cwd", fake.project], { env: fake.env() });
    expect(fake.calls()).toEqual([]);
    expect(fake.result().check.details.model).toBeNull();
    expect(fake.result().check.error_detail).toContain("no way to receive a model");
  });
});

describe("custom agents, environment and pre-flight", () => {
  it("runs a custom agent with prompt flag, provider_env placeholders and [harness.env]", async () => {
    const fake = judgeProject(
      [
        "[harness]",
        'agent = "mine"',
        'model = "big"',
        "[harness.env]",
        'EXTRA = "from-harness-env"',
        "[agents.mine]",
        `command = ["${FAKE}", "judge"]`,
        'shared_flags = ["--headless"]',
        'prompt_flag = "--prompt"',
        'prompt_position = "after_command"',
        "[agents.mine.provider_env]",
        'MINE_KEY = "{env:SOURCE_KEY}"',
        "",
      ].join("\n"),
    );
    const run = await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ SOURCE_KEY: "k-123" }),
    });
    expect(run.code).toBe(0);
    const [call] = fake.calls();
    const prompt = promptFile(fake.result().runDir);
    expect(call!.args).toEqual(["judge", "--prompt", prompt, "--headless", "--model", "big"]);
    expect(call!.env.MINE_KEY).toBe("k-123");
    expect(call!.env.EXTRA).toBe("from-harness-env");
  });

  it("a {env:VAR} that is not set is filled with nothing, warned about once per run", async () => {
    const fake = judgeProject(
      [
        "[harness]",
        'agent = "mine"',
        "[agents.mine]",
        `command = ["${FAKE}", "judge"]`,
        "[agents.mine.provider_env]",
        'MINE_KEY = "k-{env:EB_TEST_NOT_SET}"',
        "",
      ].join("\n"),
      { "eval_checks/judge2.yaml": JUDGE_YAML.replace("id: judge", "id: judge2") },
    );
    const run = await runEb(["run", "--cwd", fake.project], { env: fake.env() });
    expect(run.code, run.stderr).toBe(0);
    expect(fake.calls().map((call) => call.env.MINE_KEY)).toEqual(["k-", "k-"]);
    expect(run.stderr.split("EB_TEST_NOT_SET").length - 1).toBe(1);
  });

  it("eb run --result-out names the agent, its reasoning effort and each check's judge model", async () => {
    const fake = judgeProject(
      '[harness]\nagent = "codex"\nmodel = "m1"\nreasoning_effort = "low"\n',
    );
    const run = await runEb(
      ["run", "--cwd", fake.project, "--result-out", "r.json", "--result-format", "json"],
      { env: fake.env() },
    );
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(readFileSync(path.join(fake.project, "r.json"), "utf8"));
    expect(result).toMatchObject({
      status: "completed",
      run_passed: true,
      harness: { family: "codex", effort: "low" },
      checks: [{ id: "judge", status: "passed", model: "m1" }],
    });
  });

  it("env_allowlist passes only the named variables (plus what a program needs to start)", async () => {
    const fake = judgeProject(
      '[harness]\nagent = "codex"\nenv_allowlist = ["WANTED", "FAKE_AGENT_LOG"]\n',
    );
    await runEb(["run", "--cwd", fake.project], {
      env: fake.env({ WANTED: "yes", UNWANTED_SECRET: "no" }),
    });
    const [call] = fake.calls();
    expect(call!.env.WANTED).toBe("yes");
    expect(call!.env.UNWANTED_SECRET).toBeUndefined();
    expect(call!.env.PATH).toContain("fake-bin");
  });

  it("an unknown agent stops eb run and eb validate before anything runs", async () => {
    const fake = judgeProject('[harness]\nagent = "nope"\n');
    for (const command of ["run", "validate"]) {
      const result = await runEb([command, "--cwd", fake.project], { env: fake.env() });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("Unknown harness agent: nope");
    }
    expect(existsSync(path.join(fake.project, ".eval-banana/results"))).toBe(false);
  });

  it("a missing agent binary is reported before anything runs", async () => {
    const fake = judgeProject('[harness]\nagent = "codex"\n');
    const result = await runEb(["run", "--cwd", fake.project], {
      env: { PATH: path.dirname(process.execPath) },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("'codex', which was not found on PATH");
    expect(result.stderr).toContain("npm i -g @openai/codex");
  });

  it("eb validate --harness-agent on a machine without the agent: a warning, exit 0", async () => {
    // Real suites lint their checks this way in CI jobs that have no agent installed.
    const fake = judgeProject("");
    // A PATH with node and nothing else, wherever the agent may be installed on this machine.
    const bin = path.join(fake.project, "only-node");
    mkdirSync(bin);
    symlinkSync(process.execPath, path.join(bin, "node"));
    const env = { PATH: bin };
    const validate = await runEb(["validate", "--cwd", fake.project, "--harness-agent", "claude"], {
      env,
    });
    expect(validate.code).toBe(0);
    expect(validate.stdout).toBe("Validated 1 checks successfully.\n");
    expect(validate.stderr.match(/warning: .*'claude', which was not found on PATH/g)).toHaveLength(
      1,
    );
    const run = await runEb(["run", "--cwd", fake.project, "--harness-agent", "claude"], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("'claude', which was not found on PATH");
    expect(existsSync(path.join(fake.project, ".eval-banana/results"))).toBe(false);
  });

  it("a harness_judge check without an agent is refused, naming the file", async () => {
    const fake = judgeProject("");
    const result = await runEb(["run", "--cwd", fake.project], { env: fake.env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("first offender:");
    expect(result.stderr).toContain("judge.yaml");
    const withFlag = await runEb(["run", "--cwd", fake.project, "--harness-agent", "gemini"], {
      env: fake.env(),
    });
    expect(withFlag.code).toBe(0);
  });
});
