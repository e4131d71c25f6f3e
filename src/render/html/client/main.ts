import type { CompareBlock, PairwiseBlock } from "../../../report/blocks.js";
import type { BoardData, PageData, RunData } from "../model.js";
import { breakdownChart, deltaChart, netWinChart } from "./chart.js";
import { compareSummary } from "./compare.js";
import { count, h } from "./dom.js";
import { drillDown } from "./drill.js";
import { headline, leaderboardHeadline } from "./headline.js";
import { itemsView } from "./items.js";
import { boardTable, paretoCard } from "./leaderboard.js";
import { pairwiseSummary } from "./pairwise.js";
import { compareRows, type Row, runRows } from "./rows.js";
import { provenanceView, summaryView } from "./summary.js";

type Open = (row: Row, from: HTMLElement) => void;
type Part = HTMLElement | null;

/** What wrote a run of each kind (COMMAND_OF, which the page does not bundle). */
const COMMANDS = { checks: "eb run", cases: "eb eval", pairwise: "eb pairwise" } as const;

/** Reads the embedded data (JSON, never evaluated) and draws the page's one view. */
function main(): void {
  const data = JSON.parse(document.getElementById("eb-data")?.textContent ?? "null") as PageData;
  const drill = drillDown();
  const page = h("main", {}, ...view(data, drill.open), footer(data));
  document.getElementById("app")!.replaceChildren(page, drill.element);
  document.body.dataset.ready = "true";
  // Time to interactive, for the tests and the bench: from navigation start to a drawn page.
  performance.mark("eb-interactive");
}

function view(data: PageData, open: Open): Part[] {
  if (data.leaderboard) return leaderboardPage(data, data.leaderboard, open);
  const run = data.runs.at(-1)!;
  const base = data.runs.length > 1 ? data.runs[0]! : null;
  if (base && run.doc.compare) return comparePage(base, run, run.doc.compare, open);
  if (run.doc.pairwise) return pairwisePage(run, run.doc.pairwise, open);
  return runPage(run, open);
}

/** The command that wrote a run: its suite's (`eb skill` for a skill's arms), else its kind's. */
function commandOf(run: RunData): string {
  const suite = run.doc.run.suite;
  if (suite?.startsWith("eb ")) return suite.split(" ", 2).join(" ");
  return run.doc.kind === null ? "rows" : COMMANDS[run.doc.kind];
}

function top(title: string, run: RunData | null): HTMLElement {
  const kind = run ? commandOf(run) : null;
  return h(
    "header",
    { class: "top" },
    h("div", { class: "logo", "aria-hidden": "true" }, "eb"),
    h("h1", {}, title),
    kind ? h("span", { class: "pill" }, kind) : null,
    run ? h("span", { class: "sub" }, run.doc.run_id ?? run.doc.output_dir) : null,
  );
}

function runPage(run: RunData, open: Open): Part[] {
  return [
    top(run.doc.run.merged ? "Merged run report" : "Run report", run),
    headline(run, null),
    run.board && boardTable(run.board, [], () => {}),
    summaryView(run, "Summary"),
    breakdownChart(run.doc),
    itemsView(runRows(run, "run"), "run", open),
    provenanceView(run, "Run"),
  ];
}

function comparePage(base: RunData, cand: RunData, c: CompareBlock, open: Open): Part[] {
  return [
    top(commandOf(cand) === "eb skill" ? "The skill against none" : "Compare runs", cand),
    headline(cand, base),
    compareSummary(base.doc, cand.doc, c),
    deltaChart(c.strata, c.margin),
    itemsView(compareRows(base, cand), "compare", open),
    summaryView(cand, "Candidate"),
    provenanceView(cand, "Candidate run"),
    provenanceView(base, "Baseline run"),
  ];
}

function pairwisePage(run: RunData, p: PairwiseBlock, open: Open): Part[] {
  return [
    top("Pairwise judgement", run),
    headline(run, null),
    pairwiseSummary(p),
    netWinChart(p),
    itemsView(runRows(run, "pairwise"), "pairwise", open),
    provenanceView(run, "Run"),
  ];
}

/** The board, then the items of the run chosen in it (the best at first). */
function leaderboardPage(data: PageData, board: BoardData, open: Open): Part[] {
  const items = h("div", { "data-test": "board-items" });
  const show = (index: number) => {
    const run = data.runs[index];
    if (!run) return;
    const mode = run.doc.pairwise ? "pairwise" : "run";
    items.replaceChildren(
      h("h2", { class: "run-title" }, `Items of ${run.doc.run_id ?? run.doc.output_dir}`),
      itemsView(runRows(run, mode), mode, open),
    );
  };
  show(0);
  const warnings =
    data.warnings.length === 0
      ? null
      : h(
          "section",
          { class: "card warnings", "aria-label": "warnings" },
          h("h2", {}, "Read with care"),
          h("ul", {}, ...data.warnings.map((w) => h("li", {}, w))),
        );
  return [
    top("Leaderboard", null),
    leaderboardHeadline(
      board.rows.map((row) => row.entry),
      data.rule,
    ),
    warnings,
    paretoCard(board),
    boardTable(board, data.runs, show),
    items,
  ];
}

function footer(data: PageData): HTMLElement {
  const version = data.runs[0]?.doc.run.tool_version;
  return h(
    "footer",
    {},
    `${version ? `eval-banana ${version} · ` : ""}answers, outputs and inputs are cut at ${count(data.excerptChars)} characters; the run folder has them whole`,
  );
}

main();
