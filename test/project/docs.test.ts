import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { envName, SETTINGS } from "../../src/config/settings.js";
import { knownGraderTypes } from "../../src/graders/registry.js";

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
const DOCS_DIR = path.join(REPO_ROOT, "docs");

/** The user docs: the README and every page under docs/. */
const PAGES = [
  path.join(REPO_ROOT, "README.md"),
  ...readdirSync(DOCS_DIR)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => path.join(DOCS_DIR, name)),
];

/** Markdown without fenced blocks and code spans: a `[x](y)` inside them is not a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Targets of the inline links of a page, in order. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to "-". */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutBlocks = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, "");
  for (const [, heading] of withoutBlocks.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const text = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Why a relative link of `page` does not resolve, or null when it does. */
function brokenLink(page: string, target: string): string | null {
  const [file, anchor] = target.split("#", 2) as [string, string | undefined];
  const resolved = file === "" ? page : path.resolve(path.dirname(page), decodeURI(file));
  if (!existsSync(resolved)) return `${target}: no such file`;
  if (anchor === undefined) return null;
  if (!statSync(resolved).isFile() || !resolved.endsWith(".md")) {
    return `${target}: an anchor into a file that is not Markdown`;
  }
  const anchors = headingAnchors(readFileSync(resolved, "utf8"));
  return anchors.has(anchor) ? null : `${target}: no heading with anchor #${anchor}`;
}

const relative = (page: string) => path.relative(REPO_ROOT, page);

describe("the user docs", () => {
  it.each(PAGES.map((page) => [relative(page), page]))(
    "every relative link of %s points at a file and heading that exist",
    (_, page) => {
      const links = linkTargets(readFileSync(page, "utf8")).filter(
        (target) => !/^[a-z][a-z0-9+.-]*:/i.test(target),
      );
      const broken = links.map((target) => brokenLink(page, target)).filter((why) => why !== null);
      expect(broken).toEqual([]);
    },
  );

  it("the README links every page under docs/", () => {
    const readme = linkTargets(readFileSync(path.join(REPO_ROOT, "README.md"), "utf8"));
    const linked = new Set(readme.map((target) => target.split("#")[0]));
    const pages = PAGES.slice(1).map((page) => relative(page));
    expect(pages.filter((page) => !linked.has(page))).toEqual([]);
  });

  it("finds broken links and anchors (the check itself can fail)", () => {
    const page = path.join(DOCS_DIR, "checks.md");
    expect(brokenLink(page, "nowhere.md")).toContain("no such file");
    expect(brokenLink(page, "configuration.md#no-such-heading")).toContain("no heading");
    expect(brokenLink(page, "configuration.md#settings")).toBeNull();
    expect(linkTargets("[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n")).toEqual(["x.md"]);
    expect([
      ...headingAnchors("## `eb run` options\n## The agent's environment\n## A\n## A\n"),
    ]).toEqual(["eb-run-options", "the-agents-environment", "a", "a-1"]);
  });

  const configuration = readFileSync(path.join(DOCS_DIR, "configuration.md"), "utf8");

  it.each(SETTINGS.map((s) => [`[${s.section}] ${s.key}`, s] as const))(
    "configuration.md has a row for %s with its default and variable",
    (label, setting) => {
      const row = configuration.split("\n").find((line) => line.startsWith(`| \`${label}\` |`));
      expect(row, `no table row for ${label}`).toBeDefined();
      const variable = envName(setting);
      if (variable) expect(row).toContain(`\`${variable}\``);
      if ("default" in setting && setting.default !== undefined) {
        const value = String(setting.default).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        expect(row, `${label}: default`).toMatch(
          new RegExp(`^\\| [^|]+ \\| \`${value}(\\.0)?\` \\|`),
        );
      }
    },
  );

  it("cases.md has a row for every grader type", () => {
    const cases = readFileSync(path.join(DOCS_DIR, "cases.md"), "utf8");
    for (const type of knownGraderTypes()) expect(cases).toContain(`| \`${type}\` |`);
  });
});
