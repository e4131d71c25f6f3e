import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { CLI, type CliResult, cleanEnv, makeProject } from "../helpers/project.js";

export const BAD_AGENT = path.resolve(import.meta.dirname, "fixtures/bad-agent.mjs");
export const FLOOD_BYTES = 200 * (1 << 20);

export interface CheckJson {
  check_id: string;
  status: string;
  stdout: string;
  stderr: string;
  error_detail: string | null;
  reason: string | null;
}

/** report.json (parsed, so it must be valid JSON) and the rows of the only run of a project. */
export function onlyRun(project: string) {
  const results = path.join(project, ".eval-banana/results");
  const [name, ...others] = readdirSync(results);
  expect(others).toEqual([]);
  const runDir = path.join(results, name as string);
  const report = JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as {
    checks: CheckJson[];
    run_passed: boolean;
  };
  const rows = readFileSync(path.join(runDir, "rows.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const check = (id: string) => report.checks.find((c) => c.check_id === id) as CheckJson;
  return { runDir, report, rows: rows.slice(1), check };
}

/** The file under checks/ whose name starts with the check id and ends with `suffix`. */
export function checkFile(runDir: string, id: string, suffix: string): string {
  const name = readdirSync(path.join(runDir, "checks")).find(
    (f) => f.startsWith(`${id}-`) && f.endsWith(suffix),
  );
  expect(name, `${id}*${suffix}`).toBeDefined();
  return path.join(runDir, "checks", name as string);
}

/** Gone, or a zombie waiting to be reaped: either way it runs no more. */
export function isDeadOrZombie(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return true;
  try {
    // "pid (comm) S ...": the state follows the last ")" (comm may contain spaces or parens).
    const text = readFileSync(stat, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

export function pidsIn(file: string): number[] {
  return readFileSync(file, "utf8").trim().split("\n").map(Number);
}

/** Runs the built CLI under /usr/bin/time and returns its peak resident set size in MB. */
export function peakRssMb(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    execFile(
      "/usr/bin/time",
      ["-f", "RSS_KB=%M", process.execPath, CLI, ...args],
      { env: { ...cleanEnv(), ...env }, maxBuffer: 16 << 20, timeout: 120_000 },
      (error, _stdout, stderr) => {
        const match = /RSS_KB=(\d+)/.exec(stderr);
        if (!match) reject(error ?? new Error(`no RSS in ${stderr.slice(-500)}`));
        else resolve(Number(match[1]) / 1024);
      },
    );
  });
}

/**
 * Runs the built CLI under /usr/bin/time: its result and the CPU seconds it used. A bound on
 * CPU time holds when other test files share the cores; one on wall time does not.
 */
export function runEbCpu(args: readonly string[]): Promise<CliResult & { cpuSeconds: number }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "eb-time-"));
  const times = path.join(dir, "times.txt");
  return new Promise((resolve) => {
    execFile(
      "/usr/bin/time",
      ["-f", "%U %S", "-o", times, process.execPath, CLI, ...args],
      { env: cleanEnv(), maxBuffer: 64 << 20, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        // A failed command's times follow a "Command exited with non-zero status" line.
        const last = readFileSync(times, "utf8").trim().split("\n").at(-1) ?? "";
        const [user, system] = last.split(" ").map(Number);
        rmSync(dir, { recursive: true, force: true });
        resolve({
          code,
          stdout,
          stderr,
          cpuSeconds: (user ?? Number.NaN) + (system ?? Number.NaN),
        });
      },
    );
  });
}

/** A project with one judge check whose agent is bad-agent.mjs in the given mode. */
export function agentProject(mode: string, timeoutSeconds = 300) {
  const config = [
    "[harness]",
    'agent = "bad"',
    `timeout_seconds = ${timeoutSeconds}`,
    "[agents.bad]",
    `command = [${JSON.stringify(process.execPath)}, ${JSON.stringify(BAD_AGENT)}]`,
    "[harness.env]",
    `BAD_AGENT_MODE = "${mode}"`,
  ].join("\n");
  const project = makeProject({
    ".eval-banana/config.toml": `${config}\n`,
    "eval_checks/judge.yaml": [
      "schema_version: 1",
      "id: judge",
      "type: harness_judge",
      "description: The output is fine.",
      "instructions: Score 1.",
      "",
    ].join("\n"),
  });
  return project;
}

/**
 * Python for a deterministic check whose forked child calls setsid() (so it leaves the check's
 * process group) and writes to the inherited stdout forever, a closed pipe included. The
 * leader writes the child's pid to `pidFile` (outside the project, for the test's cleanup),
 * then sleeps until killed.
 */
export function escapeeScript(pidFile: string): string {
  return [
    "import os, sys, time",
    "pid = os.fork()",
    "if pid == 0:",
    "    os.setsid()",
    "    while True:",
    "        try:",
    "            print('x' * 80, flush=True)",
    "        except OSError:",
    "            pass",
    "        time.sleep(0.02)",
    `with open(${JSON.stringify(pidFile)}, 'w') as f:`,
    "    f.write(str(pid))",
    "time.sleep(120)",
  ].join("\n");
}
