import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SKILLS_CLI } from "./support/install-skills.js";
import { blocksOf, markdownFiles, SKILLS_DIR } from "./support/markdown.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const README = path.join(REPO, "README.md");
const SKILL = path.join(SKILLS_DIR, "eval-banana/SKILL.md");

/** The README's `## Install` section, up to the next `## ` heading. */
function readmeInstall(): string {
  const text = readFileSync(README, "utf8");
  const start = text.indexOf("\n## Install\n");
  expect(start, "README has an Install section").toBeGreaterThan(-1);
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** Each line of the page's sh blocks that runs npm, as written (comments too). */
function npmLines(file: string): string[] {
  return blocksOf(file)
    .filter((block) => block.lang === "sh")
    .flatMap((block) => block.text.split("\n"))
    .filter((line) => /\bnpm\b/.test(line));
}

/**
 * `npm i eval-banana`, `npm install -D eval-banana@1`: eval-banana by its registry name, which
 * is not this project's (nothing is published under it, and anyone may take it).
 */
const FROM_REGISTRY =
  /\bnpm\s+(?:i|install|add)\b[^`\n]*?\s(?:-\S+\s+)*eval-banana(?:@\S*)?(?=[\s`]|$)/;

describe("the install route the docs and the eval-banana skill give", () => {
  it("no page installs eval-banana by its registry name", () => {
    const pages = [README, ...markdownFiles(path.join(REPO, "docs")), ...markdownFiles()];
    const offenders = pages.flatMap((page) =>
      readFileSync(page, "utf8")
        .split("\n")
        .map((line, i) => ({ where: `${path.relative(REPO, page)}:${i + 1}`, line }))
        .filter(({ line }) => FROM_REGISTRY.test(line)),
    );
    expect(offenders).toEqual([]);
    // The pattern catches what it is for.
    expect(FROM_REGISTRY.test("Install in the project: `npm i -D eval-banana` (Node 20+")).toBe(
      true,
    );
    expect(FROM_REGISTRY.test("npm i -D ./vendor/eval-banana-0.1.0.tgz")).toBe(false);
  });

  it("SKILL.md installs eb as the README does, command for command", () => {
    const install = readmeInstall();
    const own = npmLines(SKILL);
    expect(own.some((line) => line.includes("npm pack"))).toBe(true);
    expect(own.some((line) => line.includes("npm i -D ./vendor/"))).toBe(true);
    for (const line of own) expect(install, line).toContain(line);
  });

  it("the README's first skills line runs on Node 20, the version the install test runs", () => {
    const text = readFileSync(README, "utf8");
    const lines = text.split("\n").filter((line) => /\bskills(@\S+)? add\b/.test(line));
    expect(lines[0]).toMatch(new RegExp(`^npx skills@${SKILLS_CLI.version} add `));
    expect(lines[0]).toContain("# Node 20 and later");
    const engines = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")).engines;
    expect(engines.node).toMatch(/^>=20\./);
  });
});
