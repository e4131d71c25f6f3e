import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runProcess } from "../process/run.js";

/**
 * The package version, from the nearest package.json above this file: src/run, dist/run and
 * the bundle's chunks in dist/bin all sit at different places below it.
 */
export const TOOL_VERSION: string = (
  JSON.parse(readFileSync(packageJsonAbove(fileURLToPath(import.meta.url)), "utf8")) as {
    version: string;
  }
).version;

function packageJsonAbove(file: string): string {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const candidate = join(dir, "package.json");
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${file}`);
  }
}

/** The commit checked out in the project under test, for the run manifest; null outside git. */
export async function gitCommit(
  projectRoot: string,
  env: NodeJS.ProcessEnv,
): Promise<string | null> {
  const result = await runProcess({
    command: "git",
    args: ["rev-parse", "HEAD"],
    cwd: projectRoot,
    env,
    timeoutMs: 5000,
  });
  const sha = result.stdout.trim();
  return result.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(sha) ? sha : null;
}

/** ISO-8601 UTC with microseconds and an explicit offset, as the Python original writes it. */
export function isoUtc(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000+00:00");
}

/** `YYYYMMDD_HHMMSS_<8 hex>` in UTC. */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "_").slice(0, 15);
  return `${stamp}_${randomBytes(4).toString("hex")}`;
}
