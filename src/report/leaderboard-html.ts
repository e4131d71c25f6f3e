import {
  cells,
  costUnknownText,
  levelPercent,
  mark,
  ruleLine,
} from "../render/leaderboard-text.js";
import { escapeHtml } from "./escape-html.js";
import type { Leaderboard, LeaderboardEntry, ParetoAxis } from "./leaderboard.js";
import { paretoSvg } from "./pareto-svg.js";

/**
 * The leaderboard as one self-contained page: inline CSS and SVG, no script, and a content
 * security policy that forbids every request, so it opens the same from file:// or a CI artifact.
 */
export function leaderboardHtml(board: Leaderboard): string {
  const title = `eval-banana leaderboard: ${board.entries.length} runs`;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    "</head>",
    "<body>",
    "<main>",
    `<h1>${escapeHtml(title)}</h1>`,
    ...warnings(board.warnings),
    chart(board),
    table(board),
    `<p class="rule">${escapeHtml(ruleLine(board))}.</p>`,
    "</main>",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

function warnings(list: readonly string[]): string[] {
  if (list.length === 0) return [];
  const items = list.map((w) => `<li>${escapeHtml(w)}</li>`).join("");
  return [
    `<section class="warnings" aria-label="warnings"><h2>Read with care</h2><ul>${items}</ul></section>`,
  ];
}

const AXIS_WORD: Record<ParetoAxis, string> = { cost: "cost", latency_p50_ms: "latency p50" };

/** The chart, or why there is none; on latency when some run's cost is unknown. */
function chart(board: Leaderboard): string {
  const unknown = costUnknownText(board.entries);
  const axis = board.paretoAxis;
  if (axis === null) {
    return `<p class="note">No chart: the cost is unknown for ${escapeHtml(unknown)}, and some run has no latency either (every sample cached).</p>`;
  }
  const note =
    axis === "cost"
      ? ""
      : `<p class="note">The cost is unknown for ${escapeHtml(unknown)}: the chart plots pass rate against latency p50 instead, and the Pareto front is on pass rate and latency.</p>`;
  const caption =
    `Pass rate (point) and its ${levelPercent(board.level)} interval (bar) against ${AXIS_WORD[axis]}. ` +
    "Diamonds joined by the dashed line are the Pareto front, on the estimates: " +
    `no other run has both a higher pass rate and a lower ${AXIS_WORD[axis]}. ` +
    "Whether runs differ beyond noise is what the table's vs best column tests.";
  return `${note}<figure>${paretoSvg(board.entries, axis, board.level)}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

const COLUMNS = [
  "#",
  "run",
  "model",
  "items",
  "pass rate",
  "interval",
  "cost",
  "latency p50",
  "latency p95",
  "errors",
  "vs best",
  "Pareto front",
];

function table(board: Leaderboard): string {
  const head = COLUMNS.map((name) => `<th scope="col">${escapeHtml(name)}</th>`).join("");
  const caption = `Runs, best pass rate first; intervals at ${levelPercent(board.level)}.`;
  return [
    '<table class="leaderboard">',
    `<caption>${escapeHtml(caption)}</caption>`,
    `<thead><tr>${head}</tr></thead>`,
    `<tbody>${board.entries.map(row).join("\n")}</tbody>`,
    "</table>",
  ].join("\n");
}

function row(entry: LeaderboardEntry): string {
  const status = entry.best ? "best" : entry.indistinguishable_from_best ? "tie" : "worse";
  const texts = [
    ...cells(entry),
    mark(entry),
    entry.pareto_front === null ? "-" : entry.pareto_front ? "yes" : "no",
  ];
  const tds = texts.map((cell, i) =>
    i === 1 ? `<th scope="row">${escapeHtml(cell)}</th>` : `<td>${escapeHtml(cell)}</td>`,
  );
  return `<tr class="${status}" data-run="${escapeHtml(entry.run_id)}">${tds.join("")}</tr>`;
}

const STYLE = `
:root { color-scheme: light; font-family: system-ui, sans-serif; color: #1a1a1a; background: #fff; }
main { max-width: 64rem; margin: 1.5rem auto; padding: 0 1rem; }
h1 { font-size: 1.4rem; }
figure { margin: 1rem 0; }
figcaption, .note, .rule { color: #333; font-size: 0.9rem; max-width: 48rem; }
.warnings { border-left: 4px solid #8a5a00; padding: 0.25rem 1rem; background: #fff8e6; }
.warnings h2 { font-size: 1rem; }
svg { max-width: 100%; height: auto; font-size: 12px; }
svg .axis, svg .tick { stroke: #1a1a1a; }
svg .grid { stroke: #ddd; }
svg .interval { stroke: #1f4e8c; stroke-width: 2; }
svg .mark { fill: #fff; stroke: #1f4e8c; stroke-width: 2; }
svg .front-mark { fill: #1f4e8c; }
svg .front { stroke: #1f4e8c; stroke-width: 1.5; stroke-dasharray: 5 4; }
svg text { fill: #1a1a1a; }
table { border-collapse: collapse; font-size: 0.9rem; margin: 1rem 0; }
caption { text-align: left; padding-bottom: 0.4rem; color: #333; }
th, td { border-bottom: 1px solid #ccc; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
tbody th { font-weight: normal; font-family: ui-monospace, monospace; }
tr.best th, tr.best td { font-weight: bold; }
tr.worse td { color: #444; }
`;
