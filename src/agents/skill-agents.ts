/**
 * What `eb skill run` needs of an agent CLI beyond its template: where it looks for a project's
 * skills, and the flags that make it print its session as JSON events (the transcript the
 * delivery proof and the judge read). Sources: each CLI's documentation (docs/skills.md).
 */
export interface SkillAgent {
  /** Folder, relative to the workspace, holding `<name>/SKILL.md` for each project skill. */
  skillsDir: string;
  /** Arguments added after the template's own that switch stdout to JSON events. */
  streamFlags: string[];
}

export const SKILL_AGENTS: Readonly<Record<string, SkillAgent>> = {
  claude: {
    skillsDir: ".claude/skills",
    streamFlags: ["--output-format", "stream-json", "--verbose"],
  },
  codex: { skillsDir: ".agents/skills", streamFlags: ["--json"] },
  gemini: { skillsDir: ".gemini/skills", streamFlags: ["--output-format", "stream-json"] },
  opencode: { skillsDir: ".opencode/skills", streamFlags: ["--format", "json"] },
  pi: { skillsDir: ".pi/skills", streamFlags: ["--mode", "json"] },
  // The later --output-format wins over the template's `plain`.
  grok: { skillsDir: ".agents/skills", streamFlags: ["--output-format", "streaming-json"] },
  openhands: { skillsDir: ".openhands/skills", streamFlags: ["--json"] },
};

/** An agent defined only in `[agents.<name>]`: the cross-agent folder, its output as it is. */
const CUSTOM_SKILL_AGENT: SkillAgent = { skillsDir: ".agents/skills", streamFlags: [] };

export function skillAgentOf(agent: string): SkillAgent {
  return SKILL_AGENTS[agent] ?? CUSTOM_SKILL_AGENT;
}
