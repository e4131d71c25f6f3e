import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package version, from the nearest package.json above this file: src/, dist/ and the
 * bundle in dist/bin all sit at different places below it.
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
