import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";

/**
 * Writes a file whole or not at all (temp file, then rename), its folders created; a failure is
 * an InputError naming the option that asked for it and what it holds
 * (`--junit out.xml: could not write the JUnit XML: …`).
 */
export async function writeWhole(
  file: string,
  text: string,
  option: string,
  what: string,
): Promise<void> {
  const target = path.resolve(file);
  const temp = `${target}.${process.pid}.tmp`;
  try {
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(temp, text);
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    const why = error instanceof Error ? error.message : String(error);
    throw new InputError(`${option} ${file}: could not write ${what}: ${why}`);
  }
}

/** `--junit FILE`: the JUnit XML, whole or not at all. */
export function writeJunit(file: string, xml: string): Promise<void> {
  return writeWhole(file, xml, "--junit", "the JUnit XML");
}
