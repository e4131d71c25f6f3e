import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resumeCommand } from "../../src/cli/resume-hint.js";
import {
  CLI,
  cleanEnv,
  deterministicYaml,
  makeProject,
  runEb,
  waitForFileScript,
  writeFile,
} from "../helpers/project.js";

describe("resumeCommand", () => {
  it("repeats the arguments with --resume RUN in place of any earlier one", () => {
    expect(resumeCommand(["run", "--cwd", "p", "--resume", "old", "--tag", "a b"], "/r/1")).toBe(
      "eb run --cwd p --tag 'a b' --resume /r/1",
    );
    expect(resumeCommand(["eval", "c.jsonl", "--resume=old", "-k", "3"], "/r/2")).toBe(
      "eb eval c.jsonl -k 3 --resume /r/2",
    );
  });

  it("never prints URL credentials", () => {
    const command = resumeCommand(["eval", "c.jsonl", "--api-base", "http://u:pw@h/v1"], "/r");
    expect(command).not.toContain("pw");
    expect(command).toContain("[redacted]@h/v1");
  });
});

describe("an interrupted eb run", () => {
  it("says how to finish it, and that command does", async () => {
    const wait = waitForFileScript("go");
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "pass"),
      "eval_checks/b.yaml": deterministicYaml("b", wait),
    });
    const child = spawn(process.execPath, [CLI, "run", "--cwd", project], { env: cleanEnv() });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const results = path.join(project, ".eval-banana/results");
    const rowsOf = () => {
      const [run] = existsSync(results) ? readdirSync(results) : [];
      const file = run ? path.join(results, run, "rows.jsonl") : "";
      return file && existsSync(file) ? readFileSync(file, "utf8").trim().split("\n") : [];
    };
    const deadline = Date.now() + 15_000;
    while (rowsOf().length < 2) {
      if (Date.now() > deadline) throw new Error("check a never finished");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    child.kill("SIGTERM");
    expect(await new Promise((resolve) => child.on("close", resolve))).toBe(130);
    const runDir = path.join(results, readdirSync(results)[0]!);
    const hint = `To finish this run, only its missing samples: eb run --cwd ${project} --resume ${runDir}`;
    expect(stderr).toContain(hint);

    writeFile(project, "go", "");
    const [, ...args] = hint.split(": ")[1]!.split(" ");
    const resumed = await runEb(args);
    expect(resumed.code).toBe(0);
    expect(rowsOf()).toHaveLength(3);
  });
});
