import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { InputError } from "../errors.js";

/** A skill folder as an agent gets it installed. */
export interface SkillFolder {
  /** Absolute. */
  dir: string;
  /** The `name:` of SKILL.md's front matter, else the folder's name: what the agent calls it. */
  name: string;
  /** `sha256:<hex>` of every file the agent gets (paths and contents). */
  sha256: string;
  /** The files installed, relative to `dir`, sorted. */
  files: string[];
}

/** Not installed with the skill: its evals would show the agent the expected answers. */
const LEFT_OUT = new Set(["evals", ".git", "node_modules"]);

/** Reads a skill folder; one without SKILL.md is an InputError. */
export async function readSkillFolder(given: string): Promise<SkillFolder> {
  const dir = path.resolve(given);
  const skillMd = await readFile(path.join(dir, "SKILL.md"), "utf8").catch(() => null);
  if (skillMd === null) {
    throw new InputError(`${given}: no SKILL.md in this folder — pass the skill's folder`);
  }
  const files = (await listFiles(dir, "")).sort();
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(await readFile(path.join(dir, file)));
    hash.update("\0");
  }
  return {
    dir,
    name: frontMatterName(skillMd) ?? path.basename(dir),
    files,
    sha256: `sha256:${hash.digest("hex")}`,
  };
}

async function listFiles(root: string, under: string): Promise<string[]> {
  const entries = await readdir(path.join(root, under), { withFileTypes: true });
  const found: string[][] = await Promise.all(
    entries.map(async (entry) => {
      const relative = under === "" ? entry.name : `${under}/${entry.name}`;
      if (entry.isDirectory()) {
        return under === "" && LEFT_OUT.has(entry.name) ? [] : listFiles(root, relative);
      }
      return entry.isFile() ? [relative] : [];
    }),
  );
  return found.flat();
}

/** `name: x` in the `---` block that opens SKILL.md. */
function frontMatterName(text: string): string | null {
  const block = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1];
  const name =
    block === undefined ? undefined : /^name:\s*["']?([^"'\r\n]+?)["']?\s*$/m.exec(block)?.[1];
  // The name is a folder name in the workspace: one that is not a plain name is not taken.
  return name !== undefined && /^[\w.-]+$/.test(name) && !name.startsWith(".") ? name : null;
}
