import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { killPidIn, pidIn } from "../helpers/pids.js";
import { CLI, cleanEnv, deterministicYaml, makeProject, runEb } from "../helpers/project.js";
import { escapeeScript, onlyRun } from "./process-support.js";

const dirs: string[] = [];
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) {
    killPidIn(path.join(dir, "escapee.pid"));
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A project whose only check starts an escapee; its pid file lives outside the project. */
function escapeeProject(config = "") {
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-escapee-"));
  dirs.push(dir);
  const pidFile = path.join(dir, "escapee.pid");
  const project = makeProject({
    ".eval-banana/config.toml": config,
    "eval_checks/escapee.yaml": deterministicYaml("escapee", escapeeScript(pidFile)),
  });
  return { project, pidFile };
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("eb run with a check whose child escaped its process group", () => {
  it("times the check out into an error row within a few seconds of the timeout", async () => {
    const { project, pidFile } = escapeeProject("[core]\ncheck_timeout_seconds = 2\n");
    const begun = Date.now();
    const result = await runEb(["run", "--cwd", project], { timeoutMs: 20_000 });
    expect(Date.now() - begun).toBeLessThan(2000 + 6000);
    expect(existsSync(pidFile), "the escapee was started").toBe(true);
    expect(result.code).toBe(1);
    const check = onlyRun(project).check("escapee");
    expect(check.status).toBe("error");
    expect(check.error_detail).toMatch(/timed out after 2 seconds/);
  });

  it("exits 130 soon after SIGTERM, the report marked interrupted", async () => {
    const { project, pidFile } = escapeeProject();
    const child = spawn(process.execPath, [CLI, "run", "--cwd", project], {
      env: cleanEnv(),
      stdio: "ignore",
    });
    started.push(child);
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    await until(() => pidIn(pidFile) !== null, 15_000);
    const sent = Date.now();
    child.kill("SIGTERM");
    expect(await exited).toBe(130);
    expect(Date.now() - sent).toBeLessThan(5000);
    expect(onlyRun(project).report).toMatchObject({ interrupted: true, run_passed: false });
  });
});
