import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The `skills` CLI (npm package "skills") at a pinned version, installed the way
 * test/agents/support/install.ts installs the agent CLIs: `npm install --prefix` into a cache
 * outside the repository, reused between runs, never a dependency of eval-banana.
 *
 * 1.5.18 is the newest release that runs on Node 20 (1.5.19 and later need Node >= 22.20); the
 * layout it installs (`.agents/skills/<name>/`, `.claude/skills/<name>/`, ...) is the same.
 */
export const SKILLS_CLI = { pkg: "skills", version: "1.5.18", bin: "skills" } as const;

export function skillsCacheDir(): string {
  return (
    process.env.EVAL_BANANA_SKILLS_CACHE || path.join(os.homedir(), ".cache", "eval-banana-skills")
  );
}

export function skillsInstallDir(): string {
  return path.join(skillsCacheDir(), `${SKILLS_CLI.pkg}@${SKILLS_CLI.version}`);
}

/** The CLI's entry point (run with this Node). */
export function skillsBin(): string {
  return path.join(skillsInstallDir(), "node_modules", SKILLS_CLI.pkg, "bin", "cli.mjs");
}

export type SkillsInstall =
  | { status: "ready"; installedNow: boolean; ms: number }
  | { status: "offline"; message: string };

const MARKER = ".eb-installed.json";

/** Transport-level npm failures: the registry could not be reached at all. */
const NETWORK_ERROR =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ESOCKETTIMEDOUT|network (?:request|connectivity)|socket hang up)\b/i;

/**
 * Ready to run, or "offline" when it is not in the cache and the registry cannot be reached.
 * Any other install failure throws: it is a real problem, not a missing network.
 */
export async function ensureSkillsCli(): Promise<SkillsInstall> {
  const started = performance.now();
  if (isInstalled())
    return { status: "ready", installedNow: false, ms: performance.now() - started };
  const spec = `${SKILLS_CLI.pkg}@${SKILLS_CLI.version}`;
  const probe = await npm(["view", spec, "version", "--fetch-retries=1"], os.tmpdir(), 120_000);
  if (probe.code !== 0) {
    if (NETWORK_ERROR.test(probe.output)) return offline(probe.output);
    throw new Error(`npm view ${spec} failed:\n${probe.output}`);
  }
  const dir = skillsInstallDir();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Our own package.json keeps npm from walking up to some other project.
  writeFileSync(path.join(dir, "package.json"), '{ "private": true }\n');
  const result = await npm(
    ["install", "--prefix", dir, "--no-audit", "--no-fund", "--save-exact", spec],
    dir,
    10 * 60_000,
  );
  writeFileSync(path.join(dir, "install.log"), result.output);
  if (result.code !== 0) {
    if (NETWORK_ERROR.test(result.output)) return offline(result.output);
    throw new Error(
      `npm install ${spec} failed (exit ${result.code}):\n${result.output.slice(-4000)}`,
    );
  }
  if (!existsSync(skillsBin())) throw new Error(`npm install ${spec} left no ${skillsBin()}`);
  const marker = {
    pkg: SKILLS_CLI.pkg,
    version: SKILLS_CLI.version,
    node: process.version,
    at: new Date(),
  };
  writeFileSync(path.join(dir, MARKER), `${JSON.stringify(marker, null, 2)}\n`);
  return { status: "ready", installedNow: true, ms: performance.now() - started };
}

function isInstalled(): boolean {
  const marker = path.join(skillsInstallDir(), MARKER);
  if (!existsSync(marker) || !existsSync(skillsBin())) return false;
  try {
    return (
      (JSON.parse(readFileSync(marker, "utf8")) as { version?: string }).version ===
      SKILLS_CLI.version
    );
  } catch {
    return false;
  }
}

function offline(output: string): SkillsInstall {
  const cause = output
    .split("\n")
    .filter((line) => /npm error (code|errno|network)|reason:|request to /.test(line))
    .slice(0, 4)
    .join("\n");
  return {
    status: "offline",
    message: `the npm registry cannot be reached, so skills@${SKILLS_CLI.version} cannot be installed: ${cause || output.trim().split("\n").slice(-3).join(" ")}`,
  };
}

function npm(
  args: readonly string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      "npm",
      [...args],
      {
        cwd,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, npm_config_update_notifier: "false" },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        const killed = error?.killed ? `\n(npm killed after ${timeoutMs} ms)` : "";
        resolve({ code, output: `${stdout}${stderr}${killed}` });
      },
    );
  });
}

/** Runs the installed CLI in `cwd` with a private HOME, no telemetry and no prompts. */
export function runSkills(
  args: readonly string[],
  cwd: string,
  home: string,
): Promise<{ code: number; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [skillsBin(), ...args],
      {
        cwd,
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          CI: "1",
          NO_COLOR: "1",
          DISABLE_TELEMETRY: "1",
          DO_NOT_TRACK: "1",
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
    child.stdin?.end(); // nothing to answer: a prompt would read end-of-file, not hang
  });
}
