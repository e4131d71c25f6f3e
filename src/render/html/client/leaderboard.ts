import type { BoardData, BoardRow, RunData } from "../model.js";
import { h, levelPercent, para } from "./dom.js";
import { AXIS_NAME, paretoChart } from "./pareto.js";

const AXIS_WORD = { cost: "cost", latency_p50_ms: "latency p50" } as const;

/** The chart, or why there is none; on latency when some run's cost is unknown. */
export function paretoCard(board: BoardData): HTMLElement {
  const entries = board.rows.map((row) => row.entry);
  const axis = entries[0]?.pareto_axis ?? null;
  const title = h("h2", {}, `Pass rate against ${axis === "latency_p50_ms" ? "latency" : "price"}`);
  if (axis === null) {
    const why = `No chart: the cost is unknown${board.costUnknown && ` for ${board.costUnknown}`}, and some run has no latency either (every sample cached).`;
    return h("section", { class: "card" }, title, para(why));
  }
  const caption =
    `Pass rate (point) and its ${levelPercent(entries[0]!.ci_level)} interval (bar) against ${AXIS_WORD[axis]}. ` +
    "Diamonds joined by the dashed line are the Pareto front, on the estimates: " +
    `no other run has both a higher pass rate and a lower ${AXIS_WORD[axis]}. ` +
    "Whether runs differ beyond noise is what the table's vs best column tests.";
  return h(
    "section",
    { class: "card" },
    title,
    para(
      axis === "cost" || board.costUnknown === ""
        ? null
        : `The cost is unknown for ${board.costUnknown}: the chart plots pass rate against latency p50 instead, and the Pareto front is on pass rate and latency.`,
    ),
    h(
      "figure",
      { "aria-label": AXIS_NAME[axis] },
      paretoChart(entries, axis),
      h("figcaption", {}, caption),
    ),
  );
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
  "",
];

/** The runs, best first, as the terminal's table has them; a run's button shows its items below. */
export function boardTable(
  board: BoardData,
  runs: readonly RunData[],
  show: (index: number) => void,
): HTMLElement {
  const level = board.rows[0]?.entry.ci_level ?? 0.95;
  const body = h("tbody");
  board.rows.forEach((row, i) => {
    body.append(boardRow(row, runs[i] ?? null, () => show(i)));
  });
  return h(
    "section",
    { class: "card" },
    h("h2", {}, "Runs"),
    h(
      "table",
      { class: "leaderboard" },
      h("caption", {}, `Runs, best pass rate first; intervals at ${levelPercent(level)}.`),
      h("thead", {}, h("tr", {}, ...COLUMNS.map((name) => h("th", { scope: "col" }, name)))),
      body,
    ),
  );
}

function boardRow(row: BoardRow, run: RunData | null, show: () => void): HTMLElement {
  const { entry } = row;
  const status = entry.best ? "best" : entry.indistinguishable_from_best ? "tie" : "worse";
  const texts = [
    ...row.cells,
    row.mark,
    entry.pareto_front === null ? "-" : entry.pareto_front ? "yes" : "no",
  ];
  const button = h(
    "button",
    { type: "button", class: "filter", "aria-label": `Show the items of ${entry.run_id}` },
    "items",
  );
  button.addEventListener("click", show);
  return h(
    "tr",
    { class: status, "data-run": entry.run_id },
    ...texts.map((cell, i) => (i === 1 ? h("th", { scope: "row" }, cell) : h("td", {}, cell))),
    h("td", {}, run ? button : null),
  );
}
