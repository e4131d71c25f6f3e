import path from "node:path";
import { loadConfig } from "../config/load.js";
import { EXIT, InputError } from "../errors.js";
import { leaderboardText, ruleLine } from "../render/leaderboard-text.js";
import { leaderboard, leaderboardBlock } from "../report/leaderboard.js";
import { readDocument } from "../report/read-document.js";
import { terminalSafeJson, terminalSafeStrings } from "../report/terminal.js";
import { writeHtmlPage } from "./html-page.js";
import { intervalLevel } from "./options.js";
import { printWarning } from "./output.js";
import { type ReportFlags, reportCommand } from "./report.js";
import { runLocations } from "./run-location.js";

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
  const html = flags.html !== undefined;
  const locations = await runLocations(runs, flags.cwd);
  const read = await Promise.all(
    locations.map(async (location) => {
      const options = { method: flags.interval, level, seed, pricing: config.pricing };
      return { location, ...(await readDocument(location, { ...options, outcomes: html })) };
    }),
  );
  const board = leaderboard(read, { method: flags.interval, level, seed });
  for (const warning of board.warnings) printWarning(warning);
  const block = leaderboardBlock(board);
  if (html) {
    const page = {
      documents: board.runs.map((run) => run.document),
      leaderboard: board.entries,
      rule: ruleLine(block),
      warnings: board.warnings,
    };
    await writeHtmlPage(
      flags.html!,
      page,
      board.runs.map((run) => path.dirname(run.rows.file)),
    );
  }
  // Run ids, models and commands come from the rows' manifests.
  process.stdout.write(
    flags.json
      ? `${terminalSafeJson(JSON.stringify(board.entries, null, 2))}\n`
      : leaderboardText(terminalSafeStrings(block)),
  );
  return EXIT.passed;
}
