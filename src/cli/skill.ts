import { writeFile } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../config/load.js";
import { EXIT } from "../errors.js";
import {
  armSummary,
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
import {
  checkSequentialFlags,
  nothingDrawn,
  pairedDraws,
  sequentialBlock,
  sequentialK,
} from "./sequential.js";

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
  checkSequentialFlags(flags);
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
      k: integer("-k", flags.sequential ? sequentialK(flags).k : flags.k),
      sequential: flags.sequential ? (evals) => pairedDraws([evals], flags) : undefined,
      requireUse: flags.requireUse,
      resume: flags.resume === undefined ? undefined : path.resolve(flags.cwd, flags.resume),
      cache: flags.cache,
      signal: interrupt.signal,
      argv: process.argv.slice(2),
      onArmSample: (arm, row) =>
        process.stderr.write(
          `${terminalSafeLine(`${arm} ${row.id} #${row.sample + 1}`)}: ${row.status}\n`,
        ),
      onWarning: printWarning,
    });
    process.stdout.write(`Skill run folder: ${terminalSafeLine(run.folder)}\n`);
    if (interrupt.signal.aborted) {
      process.stderr.write(
        `Interrupted: run the same command with --resume ${terminalSafeLine(run.folder)} to finish both arms.\n`,
      );
      return EXIT.interrupted;
    }
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
  const { baseline, candidate, draws } = run;
  if (baseline === null || candidate === null) return { code: EXIT.passed, lines: [] };
  for (const arm of [baseline, candidate]) process.stdout.write(armLine(arm));
  const undecided = nothingDrawn(draws, flags.inconclusive);
  if (undecided !== null) return { code: undecided, lines: [] };
  const gate = await baselineGate(baseline.run.runDir, { ...flags, scope }, undefined);
  const adjust = draws ? sequentialBlock(draws.result(), flags, draws.cases) : undefined;
  // with_skill's report.json (and report.md) gets the comparison, as an eb eval arm's does.
  const formats = run.config.reportFormats;
  const names = { baseline: baseline.configuration, candidate: candidate.configuration };
  const compared = await gate.compare(candidate.run.runDir, formats, { adjust, names });
  // The comparison decides the run, so the page leads with the gate's verdict, not the threshold's.
  const { compare, verdict, run_passed } = compared.candDoc;
  const document: RunDocument = { ...candidate.run.document, compare, verdict, run_passed };
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
  const lines = [
    helpsLine(document.compare),
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

/** An arm's pass count, then its time, tokens and cost per sample (mean ± SD), and its folder. */
function armLine(arm: ArmRun): string {
  const { stats } = arm.run.document;
  const rate = stats.pass_rate === null ? "–" : `${(stats.pass_rate * 100).toFixed(1)}%`;
  const figures = armSummary({ configuration: arm.configuration, document: arm.run.document });
  const { time_seconds: time, tokens, cost_usd: cost } = figures;
  const spent =
    cost === null ? "the arm's cost unknown (no [pricing])" : `the arm cost $${cost.toFixed(4)}`;
  return [
    `${arm.configuration}: ${stats.passed}/${stats.samples} samples passed (${rate}), ${stats.errors} errors — ${terminalSafeLine(arm.run.runDir)}`,
    `  per sample: ${time.mean.toFixed(1)} ± ${time.stddev.toFixed(1)} s, ${Math.round(tokens.mean)} ± ${Math.round(tokens.stddev)} tokens (${tokens.min}–${tokens.max}); ${spent}`,
    "",
  ].join("\n");
}

/** Whether the uplift's interval (a sequential run's: the one its verdict rests on) lies above 0. */
function helpsLine(c: RunDocument["compare"]): string {
  if (c === null) return "The skill helps: not known (no comparison)";
  const low = c.sequential?.ci_low ?? c.ci_low;
  const high = c.sequential?.ci_high ?? c.ci_high;
  if (low > 0) {
    return `The skill helps: yes, the uplift's interval lies above 0 (${signed(low)} to ${signed(high)})`;
  }
  // A sequential run stops once "not worse" is decided: its sequence need not have cleared 0.
  const why = c.sequential
    ? "; --sequential stops once the gate's verdict is known, a fixed -k run measures the uplift"
    : "";
  return `The skill helps: not shown (the uplift's interval reaches ${signed(low)}${why})`;
}

function signed(value: number): string {
  return `${value >= 0 ? "+" : ""}${(value * 100).toFixed(1)} pp`;
}
