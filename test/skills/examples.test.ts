import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadCases } from "../../src/cases/load.js";
import { envName, SETTINGS } from "../../src/config/settings.js";
import { knownGraderTypes } from "../../src/graders/registry.js";
import { makeProject, runEb, writeFile } from "../helpers/project.js";
import {
  allBlocks,
  type Block,
  type Broken,
  blocksOf,
  brokenOf,
  frontmatter,
  markdownFiles,
  messagePattern,
  SKILL_NAMES,
  SKILLS_DIR,
  tableMessages,
} from "./support/markdown.js";

const blocks = allBlocks();
const of = (lang: string) => blocks.filter((block) => block.lang === lang);
const valid = (list: Block[]) => list.filter((block) => brokenOf(block) === null);
const broken = (list: Block[]) =>
  list.flatMap((block) => {
    const labels = brokenOf(block);
    return labels ? [{ block, labels }] : [];
  });

const TROUBLESHOOTING = path.join(SKILLS_DIR, "eval-banana/references/troubleshooting.md");
const promised = tableMessages(TROUBLESHOOTING);

/** The judge examples name no agent of their own; a missing one is only a warning. */
const DEFAULT_ARGS = ["validate", "--harness-agent", "codex"];

function expectMessages(output: string, labels: Broken, where: string): void {
  expect(
    labels.expects.length,
    `${where}: a broken example needs an # expect: line`,
  ).toBeGreaterThan(0);
  for (const message of labels.expects) {
    expect(output, `${where}: should print ${JSON.stringify(message)}`).toMatch(
      messagePattern(message),
    );
  }
}

describe("skill folders", () => {
  it.each(SKILL_NAMES)(
    "%s: SKILL.md frontmatter and size follow the Agent Skills format",
    (name) => {
      const file = path.join(SKILLS_DIR, name, "SKILL.md");
      const { fields, body } = frontmatter(file);
      expect(fields.name).toBe(name);
      expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(name.length).toBeLessThanOrEqual(64);
      expect(typeof fields.description).toBe("string");
      const description = fields.description as string;
      expect(description.trim().length).toBeGreaterThan(0);
      expect(description.length).toBeLessThanOrEqual(1024);
      expect(description).toMatch(/\buse it when\b/i);
      expect(body.split("\n").length).toBeLessThan(500);
    },
  );

  it.each(markdownFiles().map((file) => path.relative(SKILLS_DIR, file)))(
    "%s: every relative link points at a file that exists",
    (relative) => {
      const file = path.join(SKILLS_DIR, relative);
      const text = readFileSync(file, "utf8");
      const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
      for (const link of links.filter((l) => !/^[a-z]+:/.test(l) && !l.startsWith("#"))) {
        const target = path.resolve(path.dirname(file), link.split("#")[0]!);
        expect(existsSync(target), `${relative}: broken link ${link}`).toBe(true);
      }
    },
  );

  it("the eval-banana skill has the references the issue asks for", () => {
    const refs = ["checks", "configuration", "cases", "reports", "gallery", "troubleshooting"];
    for (const ref of refs) {
      expect(statSync(path.join(SKILLS_DIR, `eval-banana/references/${ref}.md`)).isFile()).toBe(
        true,
      );
    }
  });

  it("finds the examples (the extraction itself works)", () => {
    expect(valid(of("yaml")).length).toBeGreaterThanOrEqual(15);
    expect(broken(of("yaml")).length).toBeGreaterThanOrEqual(10);
    expect(valid(of("jsonl")).length).toBeGreaterThanOrEqual(4);
    expect(broken(of("jsonl")).length).toBeGreaterThanOrEqual(8);
    expect(broken(of("toml")).length).toBeGreaterThanOrEqual(5);
    // Only the troubleshooting page has broken examples; each one says what is wrong.
    for (const { block, labels } of broken(blocks)) {
      expect(block.where).toMatch(/^eval-banana\/references\/troubleshooting\.md:/);
      expect(labels.why.length).toBeGreaterThan(5);
    }
  });

  it("check ids of the valid examples are unique across the skills", () => {
    const ids = valid(of("yaml")).map((block) => /^id: (.+)$/m.exec(block.text)?.[1]);
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("valid examples", () => {
  it("every valid check example passes eb validate", async () => {
    // One project, one eb process: the ids are unique (tested above), each file names its block.
    const examples = valid(of("yaml"));
    const files = Object.fromEntries(
      examples.map((block, i) => [`eval_checks/example_${i}.yaml`, block.text]),
    );
    // A script_path must exist and compile: each example's script gets a stand-in.
    const scripts = examples.flatMap((block) => {
      const scriptPath = /^script_path: (.+)$/m.exec(block.text)?.[1];
      return scriptPath ? [[`eval_checks/${scriptPath}`, "pass\n"] as const] : [];
    });
    expect(scripts.length).toBeGreaterThan(0);
    const root = makeProject({ ...files, ...Object.fromEntries(scripts) });
    const result = await runEb(DEFAULT_ARGS, { cwd: root });
    const named = result.stderr.replace(/[^\s]*example_(\d+)\.yaml/g, (_m, i: string) => {
      return examples[Number(i)]!.where;
    });
    expect(named).not.toMatch(/^error:/m);
    expect(result.code, named).toBe(0);
    expect(result.stdout).toContain(`Validated ${examples.length} checks successfully.`);
    // A missing agent warns.
    for (const line of named.split("\n").filter((l) => l.startsWith("warning:"))) {
      expect(line).toMatch(/not found on PATH/);
    }
  });

  it.each(valid(of("toml")).map((b) => [b.where, b] as const))(
    "%s: eb validate accepts the config",
    async (where, block) => {
      const root = makeProject({ ".eval-banana/config.toml": block.text });
      const result = await runEb(["validate"], { cwd: root });
      expect(result.code, `${where}\n${result.stderr}`).toBe(0);
      expect(result.stderr, where).toBe("");
    },
  );

  it.each(valid(of("jsonl")).map((b) => [b.where, b] as const))(
    "%s: the case lines load",
    async (where, block) => {
      const root = makeProject();
      const file = writeFile(root, "cases.jsonl", block.text);
      const { cases } = await loadCases(file);
      expect(cases.length, where).toBe(block.text.trim().split("\n").length);
    },
  );

  it.each(valid(of("json")).map((b) => [b.where, b] as const))(
    "%s: is valid JSON",
    (where, block) => {
      expect(() => JSON.parse(block.text), where).not.toThrow();
    },
  );
});

describe("broken examples give the error the troubleshooting table promises", () => {
  it.each(broken(blocks).map(({ block, labels }) => [block.where, labels] as const))(
    "%s: its messages are in the troubleshooting table",
    (where, labels) => {
      for (const message of labels.expects) {
        const found = promised.some(
          (cell) => cell.includes(message) || messagePattern(cell).test(message),
        );
        expect(found, `${where}: ${JSON.stringify(message)} is in no table row`).toBe(true);
      }
    },
  );

  it.each(broken(of("yaml")).map(({ block, labels }) => [block.where, labels] as const))(
    "%s: eb validate reports it",
    async (where, labels) => {
      const root = makeProject({ "eval_checks/example.yaml": labels.body });
      const result = await runEb(labels.args ?? DEFAULT_ARGS, { cwd: root });
      expect(result.code, `${where}\n${result.stderr}`).toBe(labels.exit);
      expectMessages(result.stderr, labels, where);
    },
  );

  it.each(broken(of("toml")).map(({ block, labels }) => [block.where, labels] as const))(
    "%s: eb validate reports it",
    async (where, labels) => {
      const root = makeProject({ ".eval-banana/config.toml": labels.body });
      const result = await runEb(labels.args ?? ["validate"], { cwd: root });
      expect(result.code, `${where}\n${result.stderr}`).toBe(labels.exit);
      expectMessages(result.stderr, labels, where);
    },
  );

  it.each(broken(of("jsonl")).map(({ block, labels }) => [block.where, labels] as const))(
    "%s: loadCases refuses it",
    async (where, labels) => {
      const root = makeProject();
      const file = writeFile(root, "cases.jsonl", labels.body);
      const error = await loadCases(file).then(
        () => null,
        (thrown: unknown) => thrown,
      );
      expect(error, `${where}: loaded`).toBeInstanceOf(Error);
      expect((error as Error).name).toBe("InputError");
      expectMessages((error as Error).message, labels, where);
    },
  );
});

describe("the references cover the tool", () => {
  const configuration = readFileSync(
    path.join(SKILLS_DIR, "eval-banana/references/configuration.md"),
    "utf8",
  );

  it.each(SETTINGS.map((s) => [`[${s.section}] ${s.key}`, s] as const))(
    "configuration.md documents %s with its variable",
    (label, setting) => {
      const row = configuration.split("\n").find((line) => line.startsWith(`| \`${label}\``));
      expect(row, `no table row for ${label}`).toBeDefined();
      const variable = envName(setting);
      if (variable) expect(row).toContain(`\`${variable}\``);
      if ("default" in setting && setting.default !== undefined) {
        const value = String(setting.default).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        expect(row, `${label}: default`).toMatch(new RegExp(`\\| \`${value}(\\.0)?\``));
      }
    },
  );

  it("cases.md documents every grader type", () => {
    const cases = readFileSync(path.join(SKILLS_DIR, "eval-banana/references/cases.md"), "utf8");
    for (const type of knownGraderTypes()) expect(cases).toContain(`| \`${type}\` |`);
  });

  it("the SKILL.md example blocks are among the checked ones", () => {
    const own = blocksOf(path.join(SKILLS_DIR, "eval-banana/SKILL.md"));
    expect(own.map((b) => b.lang)).toEqual(expect.arrayContaining(["yaml", "jsonl"]));
  });
});
