import type { PageModel } from "../model.js";
import { breakdownChart, deltaChart, netWinChart } from "./chart.js";
import { compareSummary } from "./compare.js";
import { h } from "./dom.js";
import { drillDown } from "./drill.js";
import { itemsView, rowsOf } from "./items.js";
import { pairwiseSummary } from "./pairwise.js";
import { manifestView, summaryView } from "./summary.js";

/** Reads the embedded data (JSON, never evaluated) and draws every view of the page. */
/** What wrote a run of each kind (COMMAND_OF, which the page does not bundle). */
const COMMANDS = { checks: "eb run", cases: "eb eval", pairwise: "eb pairwise" } as const;

function main(): void {
  const data = document.getElementById("eb-data")?.textContent ?? "null";
  const model = JSON.parse(data) as PageModel;
  const app = document.getElementById("app")!;
  const compare = model.compare;
  const pairwise = model.run.pairwise;
  const drill = drillDown(model.run.messagesNote ?? model.base?.messagesNote ?? null);
  const kind = model.run.kind === null ? "rows" : COMMANDS[model.run.kind];
  const page = h(
    "main",
    {},
    h(
      "header",
      { class: "top" },
      h("div", { class: "logo", "aria-hidden": "true" }, "eb"),
      h("h1", {}, compare ? "Compare runs" : "Run report"),
      h("span", { class: "pill" }, kind),
      h("span", { class: "sub" }, model.run.manifest?.runId ?? model.run.location),
    ),
    compare ? compareSummary(model, compare) : null,
    compare ? deltaChart(compare.strata, compare.margin) : null,
    pairwise
      ? pairwiseSummary(pairwise)
      : summaryView(model.run, compare ? "Candidate" : "Summary"),
    pairwise ? netWinChart(pairwise) : compare ? null : breakdownChart(model.run),
    itemsView(rowsOf(model), compare !== null, drill.open),
    manifestView(model.run, model.base ? "Candidate manifest" : "Manifest"),
    model.base ? manifestView(model.base, "Baseline manifest") : null,
    h(
      "footer",
      {},
      `${model.tool} · answers and streams are cut at ${model.cap.toLocaleString("en-US")} characters; the run folder has them whole`,
    ),
  );
  app.replaceChildren(page, drill.element);
  document.body.dataset.ready = "true";
  // Time to interactive, for the tests and the bench: from navigation start to a drawn page.
  performance.mark("eb-interactive");
}

main();
