import path from "node:path";
import { loadConfig } from "../config/load.js";
import { EXIT, InputError } from "../errors.js";
import { leaderboardText, ruleLine } from "../render/leaderboard-text.js";
import { leaderboard } from "../report/leaderboard.js";
import { documentOf } from "../report/read-document.js";
import { readRun } from "../report/read-rows.js";
import { summarize } from "../report/run-summary.js";
import { terminalSafe, terminalSafeJson } from "../report/terminal.js";
import { writeHtmlPage } from "./html-page.js";
import { intervalLevel } from "./options.js";
import { printWarning } from "./output.js";
import { type ReportFlags, reportCommand } from "./report.js";
import { runLocation } from "./run-location.js";

/** `eb report RUN…`: one run's statistics, or with several runs their leaderboard. */
export async function reportRuns(runs: readonly string[], flags: ReportFlags) {
  if (runs.length > 1 && flags.labels !== undefined) {
    throw new InputError("--labels calibrates one run: give eb report a single run with it");
  }
  if (runs.length > 1) return leaderboardCommand(runs, flags);
  return reportCommand(runs[0]!, flags);
}

/** `eb report A B C`: one row per run, best first, paired with the best by item. */
async function leaderboardCommand(runs: readonly string[], flags: ReportFlags) {
  const level = intervalLevel(flags.level);
  const seed = Number(flags.seed);
  if (!Number.isInteger(seed))
    throw new InputError(`--seed ${flags.seed}: expected a whole number`);
  const config = await loadConfig({ cwd: flags.cwd });
  const read = await Promise.all(
    runs.map(async (run) => {
      const location = await runLocation(run, flags.cwd);
      const rows = await readRun(location);
      const judgeModel = rows.manifest?.judge_model ?? null;
      const options = { method: flags.interval, level, seed, pricing: config.pricing, judgeModel };
      return { location, rows, options, summary: summarize(rows.tally, options) };
    }),
  );
  const board = leaderboard(read, { method: flags.interval, level, seed });
  for (const warning of board.warnings) printWarning(warning);
  if (flags.html !== undefined) {
    // The runs in the board's order, each document from the rows already read.
    const runs = board.entries.map((entry) => read.find((run) => run.location === entry.location)!);
    const documents = runs.map((run) => documentOf(run.rows, run.options));
    const page = {
      documents,
      leaderboard: board.entries,
      rule: ruleLine(board),
      warnings: board.warnings,
    };
    await writeHtmlPage(
      flags.html,
      page,
      runs.map((run) => path.dirname(run.rows.file)),
    );
  }
  // Run ids, models and commands come from the rows' manifests.
  process.stdout.write(
    flags.json
      ? `${terminalSafeJson(JSON.stringify(board.entries, null, 2))}\n`
      : terminalSafe(leaderboardText(board)),
  );
  return EXIT.passed;
}
