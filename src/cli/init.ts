import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { CONFIG_RELATIVE_PATH } from "../config/load.js";
import { CONFIG_TEMPLATE } from "../config/template.js";
import { printError } from "./output.js";

/** Writes a commented `.eval-banana/config.toml`; refuses to overwrite without --force. */
export async function initCommand(flags: { force?: boolean; cwd: string }): Promise<number> {
  const file = path.resolve(flags.cwd, CONFIG_RELATIVE_PATH);
  if (!flags.force && (await stat(file).catch(() => null))) {
    printError(`Refusing to overwrite existing file: ${file} (pass --force to replace it)`);
    return 1;
  }
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, CONFIG_TEMPLATE);
  process.stdout.write(`Wrote ${file}\n`);
  return 0;
}
