import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, cleanEnv, makeProject, runEb } from "../helpers/project.js";

/** A command's --help as one line of words: commander wraps at 80 columns. */
async function helpOf(command: string): Promise<string> {
  const run = await runEb([command, "--help"]);
  expect(run.code).toBe(0);
  return run.stdout;
}

const flat = (text: string) => text.replace(/\s+/g, " ");

describe("eb init", () => {
  it("writes no setting that has no effect, and a commented [pricing] example", async () => {
    const root = makeProject();
    const init = await runEb(["init", "--force", "--cwd", root]);
    expect(init.code).toBe(0);
    const config = readFileSync(path.join(root, ".eval-banana", "config.toml"), "utf8");
    expect(config).not.toContain("llm_max_input_chars");
    expect(config).not.toContain("has no effect");
    expect(config).toContain('# [pricing."gpt-4.1-mini"]\n# input_per_mtok = 0.40');
    expect(config).toContain("# per_run = 0.25");
  });
});

describe("--version", () => {
  it("prints package.json's version, alone or with commander's parse (-V, or beside a command)", async () => {
    const { version } = JSON.parse(
      readFileSync(path.resolve(import.meta.dirname, "../../package.json"), "utf8"),
    ) as { version: string };
    for (const args of [["--version"], ["-V"]]) {
      const run = await runEb(args);
      expect([run.code, run.stdout, run.stderr], args[0]).toEqual([0, `${version}\n`, ""]);
    }
    // Not alone: the whole parser answers, as it always did.
    const parsed = await runEb(["--version", "report"]);
    expect(parsed.stdout).toBe(`${version}\n`);
  });

  it("exits 0 with nothing on stderr when stdout is closed before it writes (eb … | head)", async () => {
    for (const args of [["--version"], ["--help"]]) {
      const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv() });
      child.stdout.destroy();
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect([code, stderr], args[0]).toEqual([0, ""]);
    }
  });
});

describe("--help", () => {
  it("names the article whose rows eb report and eb calibrate read", async () => {
    for (const command of ["report", "calibrate"]) {
      const help = flat(await helpOf(command));
      expect(help, command).not.toMatch(/the article's/);
      expect(help, command).toContain('"Building an Eval Harness in 200 Lines"');
    }
  });

  it("eb pairwise shows no option of a target, a case's judge samples or a case run", async () => {
    const help = flat(await helpOf("pairwise"));
    expect(help).not.toContain("--target");
    expect(help).not.toContain("--judge-samples");
    expect(help).not.toContain("cases run at once");
    expect(help).toContain("--judge <TEXT>");
  });

  it("eb eval starts with a synopsis and examples, before its options", async () => {
    const lines = (await helpOf("eval")).split("\n");
    const examples = lines.indexOf("Examples:");
    expect(examples).toBeGreaterThan(0);
    expect(examples).toBeLessThan(8);
    expect(lines[examples + 1]).toBe("  eb eval cases.jsonl -m gpt-4.1-mini -k 3 --judge gpt-4.1");
    expect(lines.indexOf("Options:")).toBeGreaterThan(examples);
    expect(lines.filter((line) => line === "Examples:")).toHaveLength(1);
  });
});
