import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";

/** The `eb` program as installed (package.json "bin"): the bundle `npm run build` makes. */
export const CLI = path.resolve(import.meta.dirname, "../../dist/bin/eb.js");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `eb` CLI as a user would: a real process, its exit code and output. */
export function runEb(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        cwd: options.cwd ?? process.cwd(),
        env: { ...cleanEnv(), ...options.env },
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A running `eb`, for a test that interrupts it: its stderr so far, and its exit. */
export interface RunningEb {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

export function spawnEb(
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): RunningEb {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: { ...cleanEnv(), ...options.env },
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { child, stderr: () => stderr, exited };
}

/**
 * The run folders under a results folder, oldest first by their manifest's started_at: a name
 * holds only the start second, so two runs of one second sort by their random tail.
 */
export function runFolders(results: string): string[] {
  // A folder whose rows.jsonl is not written yet is a run starting: the newest.
  const started = (run: string) => {
    try {
      const first = readFileSync(path.join(results, run, "rows.jsonl"), "utf8").split("\n")[0];
      return (JSON.parse(first ?? "{}") as { manifest?: { started_at?: string } }).manifest
        ?.started_at;
    } catch {
      return undefined;
    }
  };
  return readdirSync(results)
    .map((run) => [started(run) ?? "\uffff", run] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : 1))
    .map(([, run]) => path.join(results, run));
}

/** The newest run folder under a results folder (see runFolders). */
export function newestRun(results: string): string {
  return runFolders(results).at(-1) ?? path.join(results, "<none>");
}

/** A run folder's rows (its manifest line left out), by id then sample. */
export function sortedRows<Row extends { id: string; sample?: number }>(runDir: string): Row[] {
  const lines = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").trim().split("\n");
  return lines
    .slice(1)
    .map((line) => JSON.parse(line) as Row)
    .sort((a, b) => `${a.id}${a.sample}`.localeCompare(`${b.id}${b.sample}`));
}

/**
 * What GitHub Actions sets for a step: a test run in CI must not append to the real job summary
 * or annotate the real workflow. Tests that want them set them.
 */
const GITHUB_KEYS = new Set(["GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"]);

/** vitest.config.ts shortens the kill grace for the tests; every eb they start keeps it. */
const KILL_GRACE = "EVAL_BANANA_KILL_GRACE_MS";

/**
 * The test's environment without any EVAL_BANANA_* setting leaking in from the shell, without
 * colours (CI=true turns them on even when output is piped), and without GitHub Actions' own.
 */
export function cleanEnv(): NodeJS.ProcessEnv {
  const kept = Object.entries(process.env).filter(
    ([key]) =>
      (!key.startsWith("EVAL_BANANA_") || key === KILL_GRACE) &&
      key !== "FORCE_COLOR" &&
      !GITHUB_KEYS.has(key),
  );
  return { ...Object.fromEntries(kept), NO_COLOR: "1" };
}

const created: string[] = [];
afterEach(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A throwaway project folder, removed after the test. `files` maps relative paths to contents;
 * `.eval-banana/config.toml` is written (empty unless given) so the project root is the folder.
 */
export function makeProject(files: Record<string, string | Uint8Array> = {}): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "eb-test-"));
  created.push(root);
  const all = { ".eval-banana/config.toml": "", ...files };
  for (const [relative, content] of Object.entries(all)) writeFile(root, relative, content);
  return root;
}

export function writeFile(root: string, relative: string, content: string | Uint8Array): string {
  const full = path.join(root, relative);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, content);
  return full;
}

/** A minimal valid deterministic check YAML. */
export function deterministicYaml(id: string, script: string, extra = ""): string {
  const body = script
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
  return `schema_version: 1\nid: ${id}\ntype: deterministic\ndescription: Check ${id}.\n${extra}script: |\n${body}\n`;
}

/** A check script that waits until a file named `name` appears in the project root. */
export function waitForFileScript(name: string): string {
  return [
    "import json, sys, pathlib, time",
    "ctx = json.load(open(sys.argv[1]))",
    "root = pathlib.Path(ctx['project_root'])",
    `while not (root / '${name}').exists(): time.sleep(0.05)`,
  ].join("\n");
}

/** A case file: one case per id, its message "question ID", passed by the answer "right". */
export function rightCases(ids: readonly string[]): string {
  const line = (id: string) =>
    JSON.stringify({
      id,
      messages: [{ role: "user", content: `question ${id}` }],
      graders: [{ type: "equals", value: "right" }],
    });
  return `${ids.map(line).join("\n")}\n`;
}
