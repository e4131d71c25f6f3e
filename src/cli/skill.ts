import { writeFile } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../config/load.js";
import { EXIT } from "../errors.js";
import {
  benchmarkJson,
  notUsed,
  triggerLines,
  triggerRates,
  triggersJson,
} from "../render/skill-creator.js";
import type { RunDocument } from "../report/document.js";
import { terminalSafe, terminalSafeLine } from "../report/terminal.js";
import { loadSkillEvals } from "../skills/evals.js";
import { type ArmRun, runSkill, type SkillRun } from "../skills/run-skill.js";
import type { Scope } from "../stats/types.js";
import { baselineGate } from "./compare.js";
import { type ArmFlags, configOptions, integer } from "./eval.js";
import { writeHtmlPage } from "./html-page.js";
import { abortOnSignals } from "./interrupt.js";
import { printWarning } from "./output.js";

/**
 * `eb skill validate PATH…`: reads each skill folder's eval files (or each eval file) and says
 * how many evals and trigger queries it found; what it cannot read stops with exit 2.
 */
export async function skillValidateCommand(paths: string[]): Promise<number> {
  for (const given of paths) {
    const files = await loadSkillEvals(given);
    for (const file of files) {
      const evals = file.evals.length;
      const triggers = file.triggers.length;
      const found =
        triggers > 0
          ? `${triggers} trigger ${triggers === 1 ? "query" : "queries"}`
          : `${evals} ${evals === 1 ? "eval" : "evals"}`;
      const name = file.skillName === null ? "" : ` (skill ${file.skillName})`;
      process.stdout.write(
        `${path.relative(process.cwd(), file.file) || file.file}: ${found}${name}\n`,
      );
    }
  }
  return 0;
}

export interface SkillRunFlags extends ArmFlags {
  agent?: string;
  effort?: string;
  baselineSkill?: string;
  requireUse?: boolean;
  margin: string;
  inconclusive: "fail" | "pass";
}

/** The level of the trigger rates' intervals. */
const TRIGGER_LEVEL = 0.95;

/**
 * `eb skill run SKILL_DIR --agent NAME`: both arms through the agent, then the paired compare of
 * `eb eval --baseline` (the arm without the skill is the baseline): its gate, "the skill does
 * not make things worse", sets the exit code; whether it helps is reported. Writes
 * skill-creator's benchmark.json (and triggers.json) beside the arms' run folders.
 */
export async function skillRunCommand(skill: string, flags: SkillRunFlags): Promise<number> {
  const options = configOptions(flags);
  const config = await loadConfig(options);
  for (const warning of config.warnings) printWarning(warning);
  const interrupt = abortOnSignals();
  try {
    const run = await runSkill({
      ...options,
      config,
      skill: path.resolve(flags.cwd, skill),
      baselineSkill:
        flags.baselineSkill === undefined
          ? undefined
          : path.resolve(flags.cwd, flags.baselineSkill),
      agent: flags.agent,
      model: flags.model,
      effort: flags.effort,
      k: integer("-k", flags.k),
      requireUse: flags.requireUse,
      cache: flags.cache,
      signal: interrupt.signal,
      argv: process.argv.slice(2),
      onSample: (row) =>
        process.stderr.write(
          `${terminalSafeLine(`${row.model} ${row.id} #${row.sample + 1}`)}: ${row.status}\n`,
        ),
      onWarning: printWarning,
    });
    process.stdout.write(`Skill run folder: ${terminalSafeLine(run.folder)}\n`);
    if (interrupt.signal.aborted) return EXIT.interrupted;
    const paired = await compareArms(run, flags, config.scope);
    const triggers = await writeTriggers(run);
    const out = [...paired.lines, ...triggers.lines].join("\n");
    process.stdout.write(terminalSafe(`${out}\n`));
    return Math.max(paired.code, triggers.code);
  } finally {
    interrupt.dispose();
  }
}

/** The arms' paired compare (printed by the gate), its verdicts, and benchmark.json. */
async function compareArms(run: SkillRun, flags: SkillRunFlags, scope: Scope) {
  const { baseline, candidate } = run;
  if (baseline === null || candidate === null) return { code: EXIT.passed, lines: [] };
  for (const arm of [baseline, candidate]) process.stdout.write(armLine(arm));
  const gate = await baselineGate(baseline.run.runDir, { ...flags, scope }, undefined);
  const compared = await gate.compare(candidate.run.runDir);
  const document: RunDocument = { ...candidate.run.document, compare: compared.candDoc.compare };
  const text = benchmarkJson(
    { configuration: baseline.configuration, document: baseline.run.document },
    { configuration: candidate.configuration, document },
    {
      skillName: run.skill.name,
      skillPath: run.skill.dir,
      executor: [run.agent, run.model].filter(Boolean).join(" "),
      judge: run.judge,
      timestamp: new Date().toISOString(),
      samples: candidate.run.document.run.samples_per_item ?? 1,
    },
  );
  const file = path.join(run.folder, "benchmark.json");
  await writeFile(file, text);
  // The two arms side by side, per eval: eb compare's page.
  const page = path.join(run.folder, "report.html");
  const documents = [baseline.run.document, document];
  await writeHtmlPage(page, { documents, leaderboard: null }, [
    baseline.run.runDir,
    candidate.run.runDir,
  ]);
  const unused = notUsed(candidate.run.document);
  const refused = flags.requireUse === true && unused.samples > 0;
  const c = document.compare;
  const lines = [
    c === null
      ? "The skill helps: not known (no comparison)"
      : c.ci_low > 0
        ? `The skill helps: yes, the uplift's interval lies above 0 (${signed(c.ci_low)} to ${signed(c.ci_high)})`
        : `The skill helps: not shown (the uplift's interval reaches ${signed(c.ci_low)})`,
    `Skill not used: ${unused.samples} of ${unused.of} with-skill samples the agent finished (counted as failures${refused ? "; --require-use makes them errors" : ""})`,
    `Wrote ${file} and ${page}`,
  ];
  return { code: refused ? Math.max(compared.code, EXIT.fellShort) : compared.code, lines };
}

/** The trigger queries' rates, printed and written as triggers.json; they fail the run only when wrong. */
async function writeTriggers(run: SkillRun) {
  if (run.triggers === null) return { code: EXIT.passed, lines: [] };
  const rates = triggerRates(run.triggers.run.document, TRIGGER_LEVEL);
  const file = path.join(run.folder, "triggers.json");
  await writeFile(file, triggersJson(rates, run.skill.name, TRIGGER_LEVEL));
  const code = rates.every((r) => r.pass) ? EXIT.passed : EXIT.fellShort;
  return { code, lines: [...triggerLines(rates, TRIGGER_LEVEL), `Wrote ${file}`] };
}

function armLine(arm: ArmRun): string {
  const { stats } = arm.run.document;
  const rate = stats.pass_rate === null ? "–" : `${(stats.pass_rate * 100).toFixed(1)}%`;
  return `${arm.configuration}: ${stats.passed}/${stats.samples} samples passed (${rate}), ${stats.errors} errors — ${terminalSafeLine(arm.run.runDir)}\n`;
}

function signed(value: number): string {
  return `${value >= 0 ? "+" : ""}${(value * 100).toFixed(1)} pp`;
}
