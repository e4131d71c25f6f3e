import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** One npm-distributed agent CLI at the version the contract tests pin. */
export interface PinnedCli {
  agent: string;
  pkg: string;
  version: string;
  /** Name in node_modules/.bin. */
  bin: string;
}

/** Versions measured in docs/agent-clis.md. */
export const PINNED: readonly PinnedCli[] = [
  { agent: "codex", pkg: "@openai/codex", version: "0.171.0", bin: "codex" },
  // Pinned on purpose: on Node 20 an unpinned install silently gives 2.1.197 (engines >=22).
  { agent: "claude", pkg: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude" },
  { agent: "gemini", pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  { agent: "grok", pkg: "@xai-official/grok", version: "1.0.41", bin: "grok" },
  { agent: "opencode", pkg: "opencode-ai", version: "1.18.33", bin: "opencode" },
  { agent: "pi", pkg: "@mariozechner/pi-coding-agent", version: "0.73.1", bin: "pi" },
];

/** Outside the repo and reused between runs: `$EVAL_BANANA_AGENT_CACHE`, else ~/.cache/… */
export function agentCacheDir(): string {
  return (
    process.env.EVAL_BANANA_AGENT_CACHE || path.join(os.homedir(), ".cache", "eval-banana-agents")
  );
}

export function installDir(cli: PinnedCli): string {
  return path.join(agentCacheDir(), `${cli.agent}@${cli.version}`);
}

export function binDir(cli: PinnedCli): string {
  return path.join(installDir(cli), "node_modules", ".bin");
}

const MARKER = ".eb-installed.json";

/** Per agent: ready to run, or why it could not be installed (registry unreachable). */
export type InstallOutcome = { status: "ready" } | { status: "offline"; message: string };

/** Transport-level npm failures: the registry could not be reached at all. */
const NETWORK_ERROR =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ESOCKETTIMEDOUT|network (?:request|connectivity)|socket hang up)\b/i;

let pending: Promise<Map<string, InstallOutcome>> | undefined;

/**
 * Installs every pinned CLI that is not in the cache yet, in parallel (separate prefixes; npm's
 * cache is safe to share), and tells per agent whether it can run. A CLI that is missing while
 * the registry cannot be reached is "offline"; any other install failure throws.
 */
export async function ensureInstalled(agent: string): Promise<InstallOutcome> {
  pending ??= installAll(PINNED);
  const outcome = (await pending).get(agent);
  if (!outcome) throw new Error(`no pinned CLI for ${agent}`);
  return outcome;
}

/** Installs the one CLI a file needs (a test beside the contract's, such as a skill run's). */
export async function ensureInstalledAlone(agent: string): Promise<InstallOutcome> {
  const clis = PINNED.filter((cli) => cli.agent === agent);
  const outcome = (await installAll(clis)).get(agent);
  if (!outcome) throw new Error(`no pinned CLI for ${agent}`);
  return outcome;
}

async function installAll(clis: readonly PinnedCli[]): Promise<Map<string, InstallOutcome>> {
  const outcomes = new Map<string, InstallOutcome>(
    clis.map((cli) => [cli.agent, { status: "ready" }]),
  );
  const missing = clis.filter((cli) => !isInstalled(cli));
  if (missing.length === 0) return outcomes;
  const names = missing.map((cli) => `${cli.pkg}@${cli.version}`).join(", ");
  log(`installing ${names} into ${agentCacheDir()} (about 1.7 GB in all)`);
  const first = missing[0]!;
  const probe = await npm(
    ["view", `${first.pkg}@${first.version}`, "version", "--fetch-retries=1"],
    { cwd: os.tmpdir(), timeoutMs: 120_000 },
  );
  if (probe.code !== 0) {
    if (!NETWORK_ERROR.test(probe.output)) {
      throw new Error(`npm view ${first.pkg}@${first.version} failed:\n${probe.output}`);
    }
    const outcome = offline(probe.output);
    for (const cli of missing) outcomes.set(cli.agent, outcome);
    return outcomes;
  }
  const started = performance.now();
  const results = await Promise.all(missing.map(install));
  for (const [i, cli] of missing.entries()) outcomes.set(cli.agent, results[i]!);
  log(`installs done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return outcomes;
}

function isInstalled(cli: PinnedCli): boolean {
  const marker = path.join(installDir(cli), MARKER);
  if (!existsSync(marker) || !existsSync(path.join(binDir(cli), cli.bin))) return false;
  try {
    const data = JSON.parse(readFileSync(marker, "utf8")) as { version?: string };
    return data.version === cli.version;
  } catch {
    return false;
  }
}

async function install(cli: PinnedCli): Promise<InstallOutcome> {
  const dir = installDir(cli);
  const started = performance.now();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Our own package.json keeps npm from walking up to some other project.
  writeFileSync(path.join(dir, "package.json"), '{ "private": true }\n');
  const spec = `${cli.pkg}@${cli.version}`;
  log(`  ${spec}: npm install …`);
  const result = await npm(
    ["install", "--prefix", dir, "--no-audit", "--no-fund", "--save-exact", spec],
    { cwd: dir, timeoutMs: 30 * 60_000 },
  );
  writeFileSync(path.join(dir, "install.log"), result.output);
  if (result.code !== 0) {
    if (NETWORK_ERROR.test(result.output)) return offline(result.output);
    throw new Error(`npm install ${spec} failed (exit ${result.code}):\n${tail(result.output)}`);
  }
  if (!existsSync(path.join(binDir(cli), cli.bin))) {
    throw new Error(`npm install ${spec} left no ${cli.bin} in ${binDir(cli)}`);
  }
  const marker = { pkg: cli.pkg, version: cli.version, node: process.version, at: new Date() };
  writeFileSync(path.join(dir, MARKER), `${JSON.stringify(marker, null, 2)}\n`);
  log(`  ${spec}: installed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { status: "ready" };
}

function offline(output: string): InstallOutcome {
  // npm's error lines that name the cause, not its stack trace.
  const cause = output
    .split("\n")
    .filter((line) => /npm error (code|errno|network)|reason:|request to /.test(line))
    .slice(0, 4)
    .join("\n");
  const message = `the npm registry cannot be reached, so the agent CLIs cannot be installed:\n${cause || tail(output, 5)}`;
  banner(message);
  return { status: "offline", message };
}

/** A hard-to-miss notice on stderr. */
export function banner(message: string): void {
  const line = "!".repeat(78);
  process.stderr.write(
    `\n${line}\n!! AGENT CONTRACT TESTS SKIPPED\n!! ${message.replaceAll("\n", "\n!! ")}\n${line}\n\n`,
  );
}

export function log(message: string): void {
  process.stderr.write(`[agents] ${message}\n`);
}

function tail(text: string, lines = 30): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

function npm(
  args: readonly string[],
  options: { cwd: string; timeoutMs: number },
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      "npm",
      [...args],
      {
        cwd: options.cwd,
        timeout: options.timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, npm_config_update_notifier: "false" },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        const killed = error?.killed ? `\n(npm killed after ${options.timeoutMs} ms)` : "";
        resolve({ code, output: `${stdout}${stderr}${killed}` });
      },
    );
  });
}
