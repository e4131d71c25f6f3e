import { type LeaderboardBlock, type LeaderboardEntry, NO_TOKENS } from "../report/blocks.js";
import { countOf } from "../report/gate.js";
import { cell, code } from "./markdown.js";
import { dollars, fixed, levelPercent, milliseconds } from "./numbers.js";

const HEADER = ["#", "run", "model", "items", "pass rate", "CI", "cost", "p50", "p95", "errors"];
/** Columns of numbers, right-aligned. */
const NUMERIC = new Set(["#", "items", "cost", "p50", "p95", "errors"]);

/** `eb report RUN RUN…`: the table, best first, then what the marks and blanks mean. */
export function leaderboardText(board: LeaderboardBlock): string {
  const header = [...headerOf(board), "vs best"];
  const rows = board.entries.map((entry) => [...cells(entry), mark(entry)]);
  const lines = [
    `leaderboard of ${countOf(board.entries.length, "run")}, best pass rate first`,
    ...aligned([header, ...rows], [...HEADER, "vs best"]),
    ...notes(board),
  ];
  return `${lines.join("\n")}\n`;
}

/** report.md's table of a leaderboard, then what the marks and blanks mean. */
export function leaderboardMarkdown(board: LeaderboardBlock): string[] {
  const header = [...headerOf(board), "vs best"];
  const row = (texts: readonly string[]) => `| ${texts.join(" | ")} |`;
  // The run id and the model are foreign text: code spans.
  const entryRow = (entry: LeaderboardEntry) =>
    row(
      [...cells(entry), mark(entry)].map((text, i) =>
        i === 1 || i === 2 ? code(text) : cell(text),
      ),
    );
  return [
    `## Leaderboard of ${countOf(board.entries.length, "run")}, best pass rate first`,
    "",
    row(header),
    row(header.map(() => "---")),
    ...board.entries.map(entryRow),
    "",
    ...notes(board),
    "",
  ];
}

function headerOf(board: LeaderboardBlock): string[] {
  return HEADER.map((name) => (name === "CI" ? `${levelPercent(board.level)} CI` : name));
}

/** The rule behind the marks, and which runs have no cost. */
function notes(board: LeaderboardBlock): string[] {
  return [ruleLine(board), ...costLines(board.entries)];
}

/** How the text and the page state the rule behind the marks. */
export function ruleLine(board: LeaderboardBlock): string {
  const each = levelPercent(board.paired_level);
  return (
    `vs best: run − best pass rate, paired by item (as eb compare), ${each} interval each ` +
    `(${levelPercent(board.level)} Bonferroni over ${board.comparisons} comparison${board.comparisons === 1 ? "" : "s"}); ` +
    `"≈ best": the interval reaches 0, the runs cannot be told apart; "worse": all of it is below 0`
  );
}

/** "best", "≈ best −0.033 [−0.150, 0.080]" or "worse −0.467 [−0.650, −0.280]". */
export function mark(entry: LeaderboardEntry): string {
  if (entry.best) return "best";
  const word = entry.indistinguishable_from_best ? "≈ best" : "worse";
  return `${word} ${signed(entry.delta_vs_best)} [${signed(entry.delta_ci_low)}, ${signed(entry.delta_ci_high)}]`;
}

/** The columns the text and the page share: rank to errors. */
export function cells(entry: LeaderboardEntry): string[] {
  return [
    String(entry.rank),
    entry.run_id,
    entry.model ?? "-",
    String(entry.items),
    fixed(entry.pass_rate),
    `[${fixed(entry.ci_low)}, ${fixed(entry.ci_high)}]`,
    entry.cost_note === NO_TOKENS ? "-" : dollars(entry.cost),
    milliseconds(entry.latency_p50_ms),
    milliseconds(entry.latency_p95_ms),
    String(entry.errors),
  ];
}

function costLines(entries: readonly LeaderboardEntry[]): string[] {
  const unknown = costUnknownText(entries);
  return unknown === "" ? [] : [`cost unknown for ${unknown}`];
}

/**
 * Which runs have no cost and why, each reason once: "a, b (no tokens recorded); c (…)".
 * Nothing when no run recorded tokens: no cost applies to any of them.
 */
export function costUnknownText(entries: readonly LeaderboardEntry[]): string {
  if (entries.every((entry) => entry.cost_note === NO_TOKENS)) return "";
  const byNote = new Map<string, string[]>();
  for (const entry of entries) {
    if (entry.cost_note === null) continue;
    byNote.set(entry.cost_note, [...(byNote.get(entry.cost_note) ?? []), entry.run_id]);
  }
  return [...byNote].map(([note, runs]) => `${runs.join(", ")} (${note})`).join("; ");
}

function aligned(rows: readonly string[][], names: readonly string[]): string[] {
  const widths = names.map((_, c) => rows.reduce((w, row) => Math.max(w, row[c]!.length), 0));
  return rows.map((row) =>
    row
      .map((cell, column) => {
        const last = column === row.length - 1;
        if (last) return cell;
        const width = widths[column]!;
        return NUMERIC.has(names[column]!) ? cell.padStart(width) : cell.padEnd(width);
      })
      .join("  "),
  );
}

export function signed(value: number | null): string {
  if (value === null) return "-";
  const text = Math.abs(value).toFixed(3);
  return value < 0 && text !== "0.000" ? `−${text}` : `+${text}`;
}
