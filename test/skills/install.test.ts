import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { makeProject } from "../helpers/project.js";
import {
  ensureSkillsCli,
  runSkills,
  SKILLS_CLI,
  skillsInstallDir,
} from "./support/install-skills.js";
import { frontmatter, SKILL_NAMES } from "./support/markdown.js";

const REPO = path.resolve(import.meta.dirname, "../..");

/** Where `skills add` (1.5.18) puts a project's skills for each agent this test names. */
const AGENT_DIRS = {
  codex: ".agents/skills",
  "claude-code": ".claude/skills",
  openhands: ".openhands/skills",
  pi: ".pi/skills",
} as const;
type Agent = keyof typeof AGENT_DIRS;

// Decided before the tests are collected, so an unreachable registry is a visible skip.
const install = await ensureSkillsCli();

/** Checks that every skill is in `dir` as the repository has it, frontmatter valid. */
function expectInstalled(project: string, dir: string): void {
  for (const name of SKILL_NAMES) {
    const skill = path.join(project, dir, name);
    const file = path.join(skill, "SKILL.md");
    expect(existsSync(file), `${dir}/${name}/SKILL.md`).toBe(true);
    const { fields } = frontmatter(file);
    expect(fields.name).toBe(name);
    expect(typeof fields.description).toBe("string");
    expect(String(fields.description).length).toBeLessThanOrEqual(1024);
    // A copy of the repository's file, byte for byte, not a link back into the repository.
    expect(readFileSync(file, "utf8")).toBe(
      readFileSync(path.join(REPO, "skills", name, "SKILL.md"), "utf8"),
    );
    expect(realpathSync(skill).startsWith(realpathSync(project))).toBe(true);
  }
  for (const file of [
    "eval-banana/references/troubleshooting.md",
    "gemini-media-use/scripts/analyze_media.py",
    "gemini-media-use/scripts/upload_media.py",
    "voxtral-transcribe/scripts/transcribe.py",
  ]) {
    expect(existsSync(path.join(project, dir, file)), `${dir}/${file}`).toBe(true);
  }
}

async function add(agents: Agent[], extra: string[] = []) {
  const project = makeProject({ "package.json": '{ "private": true }\n' });
  const home = path.join(project, ".home");
  mkdirSync(home);
  const args = ["add", REPO, ...agents.flatMap((agent) => ["-a", agent]), ...extra, "-y"];
  const result = await runSkills(args, project, home);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  // Nothing was written to the (private) home: a project install stays in the project.
  expect(readdirSync(home)).toEqual([]);
  return { project, home, ms: result.ms };
}

describe(`npx skills add (skills@${SKILLS_CLI.version}) installs the repository's skills`, () => {
  if (install.status === "offline") {
    console.warn(`SKIPPED: the skills install test: ${install.message}`);
    it.skip(`installs the three skills for several agents (${install.message})`, () => {});
    return;
  }

  it("lists exactly the three skills of the repository", async () => {
    const project = makeProject();
    const listed = await runSkills(
      ["add", REPO, "--list"],
      project,
      path.join(project, ".eval-banana"),
    );
    expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/Found 3 skills/);
    for (const name of SKILL_NAMES) expect(listed.stdout).toContain(name);
  });

  it("installs them for codex and claude-code (one copy, a link for the second agent)", async () => {
    const { project, home, ms } = await add(["codex", "claude-code"]);
    console.log(
      `skills@${SKILLS_CLI.version} (${skillsInstallDir()}): ` +
        `${install.installedNow ? `installed in ${(install.ms / 1000).toFixed(1)} s` : "from the cache"}; ` +
        `skills add took ${(ms / 1000).toFixed(1)} s`,
    );
    expectInstalled(project, AGENT_DIRS.codex);
    expectInstalled(project, AGENT_DIRS["claude-code"]);
    expect(lstatSync(path.join(project, ".claude/skills/eval-banana")).isSymbolicLink()).toBe(true);

    // The CLI's own view: every skill installed in the project.
    const list = await runSkills(["list", "--json"], project, home);
    expect(list.code, list.stderr).toBe(0);
    const installed = JSON.parse(list.stdout) as { name: string; scope: string }[];
    expect(installed.map((skill) => skill.name).sort()).toEqual([...SKILL_NAMES]);
    expect(installed.every((skill) => skill.scope === "project")).toBe(true);
  });

  it("with --copy, fills each agent's own folder (codex, claude-code, openhands, pi)", async () => {
    const agents = Object.keys(AGENT_DIRS) as Agent[];
    const { project } = await add(agents, ["--copy"]);
    for (const agent of agents) expectInstalled(project, AGENT_DIRS[agent]);
    expect(lstatSync(path.join(project, ".claude/skills/eval-banana")).isSymbolicLink()).toBe(
      false,
    );
  });
});
