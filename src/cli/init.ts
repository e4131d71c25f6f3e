import { appendFile, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { CONFIG_RELATIVE_PATH } from "../config/load.js";
import { CONFIG_TEMPLATE } from "../config/template.js";
import { EXIT } from "../errors.js";
import { type SchemaName, schemaFile, schemaId } from "../schemas/names.js";
import { printError } from "./output.js";

const EXAMPLE_CHECK = path.join("eval_checks", "example.yaml");

/** A first check that passes, so the first `eb run` shows what a run looks like. */
const EXAMPLE_YAML = `# An example check: edit it to test what your project produces, or delete it.
schema_version: 1
id: example_config_exists
type: deterministic
description: The project has an eval-banana config.
script: |
  import json, sys
  from pathlib import Path
  # eb passes the path of a context.json: check_id, project_root, source_path, output_dir.
  ctx = json.loads(Path(sys.argv[1]).read_text())
  config = Path(ctx["project_root"]) / ".eval-banana" / "config.toml"
  assert config.exists(), f"{config} not found"  # exit 0 = passed; an AssertionError = failed
`;

/** What a run leaves that does not belong in version control. */
const IGNORED = [".eval-banana/results/", ".eval-banana/cache/"];

/**
 * Writes a commented `.eval-banana/config.toml` and, when the project has no checks folder yet,
 * one example check; adds the run and cache folders to `.gitignore`. An existing config is
 * refused (exit 2) unless --force.
 */
export async function initCommand(flags: { force?: boolean; cwd: string }): Promise<number> {
  const root = path.resolve(flags.cwd);
  const file = path.join(root, CONFIG_RELATIVE_PATH);
  if (!flags.force && (await exists(file))) {
    printError(`Refusing to overwrite existing file: ${file} (pass --force to replace it)`);
    return EXIT.couldNotRun;
  }
  await mkdir(path.dirname(file), { recursive: true });
  // Taplo (Even Better TOML) reads this directive; to TOML it is a comment.
  const configSchema = await schemaReference("config", path.dirname(file));
  await writeFile(file, `#:schema ${configSchema}\n${CONFIG_TEMPLATE}`);
  const lines = [`Wrote ${file}`];
  if (!(await exists(path.join(root, "eval_checks")))) {
    await mkdir(path.join(root, "eval_checks"));
    const checkSchema = await schemaReference("checks", path.join(root, "eval_checks"));
    const modeline = `# yaml-language-server: $schema=${checkSchema}\n`;
    await writeFile(path.join(root, EXAMPLE_CHECK), modeline + EXAMPLE_YAML);
    lines.push(`Wrote ${path.join(root, EXAMPLE_CHECK)}`);
  }
  const ignored = await ignoreRunFolders(root);
  if (ignored.length > 0)
    lines.push(`Added ${ignored.join(", ")} to ${path.join(root, ".gitignore")}`);
  lines.push(
    "",
    "Next:",
    "  npx eb list            the checks eb finds (every *.yaml in an eval_checks/ folder)",
    "  npx eb run --dry-run   what eb run would run, and its judges' cost (see [pricing])",
    "  npx eb run             run them; the report is in .eval-banana/results/<run>/report.md",
    "  harness_judge checks need an agent: set [harness] agent in the config (see its comments)",
  );
  process.stdout.write(`${lines.join("\n")}\n`);
  return EXIT.passed;
}

/**
 * Where an editor finds a schema for a file in `fromDir`: the copy in the project's installed
 * package (relative, so it works offline and always matches the installed version), else this
 * version's copy on unpkg (eb run through npx or a global install has no copy in the project).
 */
async function schemaReference(name: SchemaName, fromDir: string): Promise<string> {
  const installed = path.join("node_modules", "eval-banana", "schemas", schemaFile(name));
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, installed);
    if (await exists(candidate)) return path.relative(fromDir, candidate).split(path.sep).join("/");
    if (path.dirname(dir) === dir) return schemaId(name);
  }
}

/** Appends the run and cache folders to .gitignore (created if missing); returns what it added. */
async function ignoreRunFolders(root: string): Promise<string[]> {
  const gitignore = path.join(root, ".gitignore");
  const text = await readFile(gitignore, "utf8").catch(() => "");
  const current = text.split(/\r?\n/);
  const missing = IGNORED.filter((entry) => !current.includes(entry));
  if (missing.length === 0) return [];
  const separator = text === "" || text.endsWith("\n") ? "" : "\n";
  await appendFile(gitignore, `${separator}${missing.join("\n")}\n`);
  return missing;
}

async function exists(file: string): Promise<boolean> {
  return (await stat(file).catch(() => null)) !== null;
}
