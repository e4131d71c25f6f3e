import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type CliResult, makeProject, runEb } from "../helpers/project.js";
import { caseLine, filesUnder } from "./support.js";

const ECHO = path.resolve(import.meta.dirname, "fixtures/echo-secrets.mjs");

function secret(prefix: string): string {
  return `${prefix}-${randomBytes(10).toString("hex")}`;
}

/** No file eb wrote under `root` and no output holds any of `secrets`, as bytes. */
function expectNowhere(root: string, secrets: readonly string[], outputs: CliResult[]): void {
  // The config is the user's own file, where a [harness.env] secret is written by them.
  const files = filesUnder(root).filter((file) => file !== ".eval-banana/config.toml");
  expect(files.length).toBeGreaterThan(0);
  for (const value of secrets) {
    const hits = files.filter((file) => readFileSync(path.join(root, file)).includes(value));
    expect(hits, `files holding ${value}`).toEqual([]);
    for (const out of outputs) expect(`${out.stdout}\n${out.stderr}`).not.toContain(value);
  }
}

describe("a secret a child echoes back is written nowhere", () => {
  it("eb eval --target: eb's key is not inherited; key-like variables are scrubbed", async () => {
    const key = secret("sk-live");
    const token = secret("tok");
    const root = makeProject({
      "cases.jsonl": `${caseLine("a", "hi", [
        { type: "contains", all: ["answer"] },
        { type: "regex", pattern: "^nothing" },
      ])}\n`,
    });
    const env = {
      EVAL_BANANA_API_KEY: key,
      OPENAI_API_KEY: key,
      MY_SERVICE_TOKEN: token,
      ECHO_NAMES: "EVAL_BANANA_API_KEY,OPENAI_API_KEY,MY_SERVICE_TOKEN",
    };
    const target = `${JSON.stringify(process.execPath)} ${JSON.stringify(ECHO)} target`;
    // --cache: the cache is one more file eb writes.
    const run = await runEb(["eval", "cases.jsonl", "--target", target, "-k", "2", "--cache"], {
      cwd: root,
      env,
    });
    expect(run.code).toBe(1);
    expect(filesUnder(path.join(root, ".eval-banana/cache")).length).toBeGreaterThan(0);
    const rows = readFileSync(
      path.join(root, filesUnder(root).find((f) => f.endsWith("rows.jsonl"))!),
      "utf8",
    );
    expect(rows).toContain(
      "EVAL_BANANA_API_KEY=unset OPENAI_API_KEY=unset MY_SERVICE_TOKEN=[redacted]",
    );
    // The regex grader's reason quotes the first 80 characters of the output, which end inside
    // the token: quoted after scrubbing, no piece of it is left for the scrubber to miss.
    expect(rows).toContain('no match for /^nothing/ in \\"answer EVAL_BANANA_API_KEY=unset');
    expect(rows).not.toContain(token.slice(0, 8));
    // Passed on when asked: the program has it, and eb still writes it nowhere.
    const args = ["eval", "cases.jsonl", "--target", target, "--target-env", "OPENAI_API_KEY"];
    const passed = await runEb([...args, "--flat-output", "--out", "passed"], { cwd: root, env });
    expect(readFileSync(path.join(root, "passed/rows.jsonl"), "utf8")).toContain(
      "EVAL_BANANA_API_KEY=unset OPENAI_API_KEY=[redacted]",
    );
    const unknown = await runEb([...args.slice(0, -1), "PATH"], { cwd: root, env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "--target-env PATH: only EVAL_BANANA_API_KEY and OPENAI_API_KEY",
    );
    expectNowhere(root, [key, token], [run, passed]);
  });

  it("eb run with an agent: provider_env and key-like [harness.env] values are scrubbed", async () => {
    const provided = secret("pk");
    const harnessKey = secret("hk");
    const config = [
      "[harness]",
      'agent = "echo"',
      "[harness.env]",
      `SERVICE_API_KEY = "${harnessKey}"`,
      'ECHO_NAMES = "PROVIDER_KEY,SERVICE_API_KEY"',
      "[agents.echo]",
      `command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(ECHO)}, "judge"]`,
      "[agents.echo.provider_env]",
      'PROVIDER_KEY = "{env:SOURCE_OF_KEY}"',
    ].join("\n");
    const project = makeProject({
      ".eval-banana/config.toml": `${config}\n`,
      "eval_checks/judge.yaml":
        "schema_version: 1\nid: judge\ntype: harness_judge\ndescription: Fine.\ninstructions: Score 1.\n",
    });
    // The source variable's name does not look like a key: only provider_env marks it secret.
    const run = await runEb(["run", "--cwd", project, "--verbose"], {
      env: { SOURCE_OF_KEY: provided },
    });
    expect(run.code, run.stderr).toBe(0);
    const report = readFileSync(
      path.join(project, filesUnder(project).find((f) => f.endsWith("report.json"))!),
      "utf8",
    );
    expect(report).toContain("saw PROVIDER_KEY=[redacted] SERVICE_API_KEY=[redacted]");
    expect(filesUnder(project).some((f) => f.endsWith(".stderr.txt"))).toBe(true);
    expectNowhere(project, [provided, harnessKey], [run]);
  });
});
