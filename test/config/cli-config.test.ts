import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deterministicYaml, makeProject, runEb } from "../helpers/project.js";

describe("a config error stops the CLI before anything runs", () => {
  const config = '[core]\nsamples = 1\n\n[agents.myagent]\nprompt_flag = "--prompt"\n';

  it.each([["validate"], ["run"]])(
    "eb %s: a custom agent without command exits 2, naming file, line and key",
    async (command) => {
      const root = realpathSync(
        makeProject({
          ".eval-banana/config.toml": config,
          "eval_checks/ok.yaml": deterministicYaml("ok", "print('ok')"),
        }),
      );
      const result = await runEb([command, "--cwd", root]);
      expect(result.code).toBe(2);
      const file = path.join(root, ".eval-banana", "config.toml");
      expect(result.stderr).toContain(
        `${file}:4: [agents.myagent] command is required for a custom agent (a list such as ["my-cli", "run"]); built-in agents are: codex, claude,`,
      );
      expect(existsSync(path.join(root, ".eval-banana", "results"))).toBe(false);
    },
  );
});

describe("a config warning", () => {
  it.each([["run"], ["validate"], ["list"]])("is printed once by eb %s", async (command) => {
    const root = makeProject({
      ".eval-banana/config.toml": "[core]\nllm_timeout_seconds = 5\n",
      "eval_checks/ok.yaml": deterministicYaml("ok", "print('ok')"),
    });
    const result = await runEb([command, "--cwd", root]);
    expect(result.code).toBe(0);
    expect(result.stderr.match(/llm_timeout_seconds is no longer used/g)).toHaveLength(1);
  });
});
