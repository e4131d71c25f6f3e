import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";

/** The repository's skills/ folder. */
export const SKILLS_DIR = path.resolve(import.meta.dirname, "../../../skills");

/** The skills this repository ships. */
export const SKILL_NAMES = ["eval-banana", "gemini-media-use", "voxtral-transcribe"] as const;

/** One fenced code block of a Markdown file. */
export interface Block {
  /** The fence's info string, e.g. "yaml". */
  lang: string;
  /** The block's text, without the fences, ending in a newline. */
  text: string;
  /** Path relative to skills/ and the 1-based line of the opening fence. */
  where: string;
}

/** A block that is wrong on purpose: its first line is `# broken on purpose: <what is wrong>`. */
export interface Broken {
  why: string;
  /** The messages it must produce (`# expect:` lines), `<...>` matching anything. */
  expects: string[];
  /** `# args:`: the eb arguments to use instead of the default. */
  args: string[] | null;
  /** `# exit:`: the exit code it must give (default 2). */
  exit: number;
  /** The block without its label lines. */
  body: string;
}

const BROKEN = /^# broken on purpose: (.+)$/;
const LABEL = /^# (expect|args|exit): (.*)$/;

export function markdownFiles(dir = SKILLS_DIR): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** Every fenced block (``` or ~~~, any length ≥ 3) of a Markdown file. */
export function blocksOf(file: string): Block[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const blocks: Block[] = [];
  let open: { fence: string; lang: string; start: number; body: string[] } | null = null;
  lines.forEach((line, index) => {
    const fence = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (open === null) {
      if (fence) open = { fence: fence[1]!, lang: fence[2]!, start: index + 1, body: [] };
      return;
    }
    const indent = /^\s*/.exec(line)![0].length;
    if (line.trim().startsWith(open.fence) && line.trim().replace(/[`~]/g, "") === "") {
      blocks.push({
        lang: open.lang,
        text: `${dedent(open.body, indent).join("\n")}\n`,
        where: `${path.relative(SKILLS_DIR, file)}:${open.start}`,
      });
      open = null;
      return;
    }
    open.body.push(line);
  });
  if (open !== null) throw new Error(`${file}: unclosed code fence`);
  return blocks;
}

/** Blocks inside list items are indented like their closing fence. */
function dedent(lines: string[], indent: number): string[] {
  return indent === 0 ? lines : lines.map((line) => line.slice(Math.min(indent, leading(line))));
}

function leading(line: string): number {
  return /^\s*/.exec(line)![0].length;
}

export function allBlocks(): Block[] {
  return markdownFiles().flatMap(blocksOf);
}

/** The broken-on-purpose labels of a block, or null for an example meant to be valid. */
export function brokenOf(block: Block): Broken | null {
  const lines = block.text.split("\n");
  const first = BROKEN.exec(lines[0] ?? "");
  if (!first) {
    if (block.text.includes("broken on purpose")) {
      throw new Error(`${block.where}: "broken on purpose" must be the block's first line`);
    }
    return null;
  }
  const broken: Broken = { why: first[1]!.trim(), expects: [], args: null, exit: 2, body: "" };
  let rest = 1;
  for (; rest < lines.length; rest++) {
    const label = LABEL.exec(lines[rest]!);
    if (!label) break;
    const value = label[2]!.trim();
    if (label[1] === "expect") broken.expects.push(value);
    else if (label[1] === "args") broken.args = value.split(/\s+/);
    else broken.exit = Number(value);
  }
  broken.body = lines.slice(rest).join("\n");
  return broken;
}

/** A message with `<...>` placeholders as a pattern (a placeholder matches any text). */
export function messagePattern(message: string): RegExp {
  const parts = message
    .split(/<[^<>]+>/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(parts.join("[\\s\\S]*?"));
}

/** The `code` spans of a Markdown file's table rows, with `\|` read as `|`. */
export function tableMessages(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .flatMap((line) => [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replaceAll("\\|", "|")));
}

/** The YAML frontmatter of a SKILL.md (parsed as the skills CLI reads it) and the body after it. */
export function frontmatter(file: string): { fields: Record<string, unknown>; body: string } {
  const text = readFileSync(file, "utf8");
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!match) throw new Error(`${file}: no YAML frontmatter`);
  const fields = parseYaml(match[1]!) as unknown;
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    throw new Error(`${file}: the frontmatter is not a mapping`);
  }
  return { fields: fields as Record<string, unknown>, body: text.slice(match[0].length) };
}
