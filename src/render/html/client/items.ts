import type { DocumentItem } from "../../../report/document.js";
import { count, h } from "./dom.js";
import { FILTERS, type Filter, type Mode, type Row } from "./rows.js";
import {
  changeBadge,
  flakyBadge,
  isFlaky,
  outcomeBadge,
  outcomeOf,
  PAIR_OUTCOMES,
  pairBadge,
} from "./status.js";

/** Rows drawn at once: 10,000 items stay as fast as 100. */
const PAGE_ROWS = 100;

const SCORE_HEADING: Record<Mode, string> = {
  run: "Passed",
  compare: "Baseline → candidate",
  pairwise: "Candidate won",
};

/**
 * The items table: filter buttons (aria-pressed; the first is on), a search box, one page of
 * rows at a time, in the order given. A row is focusable; Enter or a click opens its drill-down.
 */
export function itemsView(
  rows: readonly Row[],
  mode: Mode,
  open: (row: Row, from: HTMLElement) => void,
): HTMLElement {
  const filters = FILTERS[mode];
  const state = { filter: filters[0]!, query: "", page: 0, shown: [] as readonly Row[] };
  const buttons = filters.map((filter) => filterButton(filter, rows, () => choose(filter)));
  const search = h("input", {
    type: "search",
    placeholder: "Search id, stratum, tag or reason",
    "aria-label": "Search items",
  });
  search.addEventListener("input", () => {
    state.query = search.value.trim().toLowerCase();
    state.page = 0;
    update();
  });
  const body = h("tbody");
  const status = h("span", { "aria-live": "polite", "data-test": "shown" });
  const prev = h("button", { type: "button" }, "‹ Previous");
  const next = h("button", { type: "button" }, "Next ›");
  prev.addEventListener("click", () => turn(-1));
  next.addEventListener("click", () => turn(1));
  const columns = mode === "compare" ? 6 : 5;
  const table = h("table", { class: "items" }, h("thead", {}, headRow(mode)), body);

  function choose(filter: Filter): void {
    state.filter = filter;
    state.page = 0;
    update();
  }

  function turn(by: number): void {
    state.page += by;
    draw();
  }

  function update(): void {
    for (const button of buttons) {
      button.setAttribute("aria-pressed", String(button.dataset.filter === state.filter.key));
    }
    const { keep } = state.filter;
    const query = state.query;
    state.shown = rows.filter((row) => keep(row) && (query === "" || row.haystack.includes(query)));
    draw();
  }

  function draw(): void {
    const pages = Math.max(1, Math.ceil(state.shown.length / PAGE_ROWS));
    state.page = Math.min(Math.max(0, state.page), pages - 1);
    const start = state.page * PAGE_ROWS;
    const slice = state.shown.slice(start, start + PAGE_ROWS);
    body.replaceChildren(...slice.map((row) => tableRow(row, mode, open)));
    if (slice.length === 0) {
      const none = h("td", { colspan: String(columns), class: "empty" }, "No item matches.");
      body.append(h("tr", {}, none));
    }
    const total = state.shown.length;
    const noun = total === 1 ? "item" : "items";
    status.textContent =
      total === 0
        ? "no items"
        : `${count(start + 1)}–${count(start + slice.length)} of ${count(total)} ${noun}`;
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
  }

  update();
  return h(
    "section",
    { class: "card", "aria-labelledby": "items-title" },
    h(
      "h2",
      { id: "items-title" },
      mode === "compare" ? "Items, what changed first" : "Items, worst first",
    ),
    h(
      "div",
      { class: "toolbar" },
      h("div", { class: "filters", role: "group", "aria-label": "Filter items" }, ...buttons),
      search,
    ),
    table,
    h("div", { class: "pager" }, status, prev, next),
  );
}

function filterButton(filter: Filter, rows: readonly Row[], choose: () => void): HTMLElement {
  const button = h(
    "button",
    { type: "button", class: "filter", "aria-pressed": "false", "data-filter": filter.key },
    filter.label,
    h("span", { class: "count" }, count(rows.filter(filter.keep).length)),
  );
  button.addEventListener("click", choose);
  return button;
}

function headRow(mode: Mode): HTMLElement {
  return h(
    "tr",
    {},
    h("th", { scope: "col" }, "Status"),
    mode === "compare" ? h("th", { scope: "col" }, "Change") : null,
    h("th", { scope: "col" }, "Item"),
    h("th", { scope: "col" }, "Stratum / tags"),
    h("th", { scope: "col" }, SCORE_HEADING[mode]),
    h(
      "th",
      { scope: "col" },
      mode === "pairwise" ? "First verdict short of a win" : "Why it fell short",
    ),
  );
}

function tableRow(row: Row, mode: Mode, open: (row: Row, from: HTMLElement) => void): HTMLElement {
  const { item } = row.side;
  const score =
    row.base && mode === "compare" ? `${scoreOf(row.base.item)} → ${scoreOf(item)}` : scoreOf(item);
  const tr = h(
    "tr",
    { tabindex: "0", "data-id": item.id, title: "Enter or click: details" },
    h("td", {}, statusCell(row)),
    mode === "compare" ? h("td", {}, row.change ? changeBadge(row.change) : null) : null,
    h("td", { class: "id" }, item.id),
    h("td", {}, groupCell(item)),
    h("td", { class: "score" }, score),
    h("td", { class: "reason" }, item.problem ?? ""),
  );
  tr.addEventListener("click", () => open(row, tr));
  tr.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    // Else the same keystroke would go on to press the dialog's focused Close button.
    event.preventDefault();
    open(row, tr);
  });
  return tr;
}

/** A run's pass / fail / error; a pairwise run's count of each outcome, worst first. */
function statusCell(row: Row): HTMLElement {
  const { item } = row.side;
  if (row.pairs) {
    const counts = PAIR_OUTCOMES.map((o) => [o, row.pairs!.filter((p) => p === o).length] as const);
    const badges = counts.filter(([, n]) => n > 0).map(([o, n]) => pairBadge(o, n));
    return h("div", { class: "tags", "data-test": "pairs" }, ...badges);
  }
  return h(
    "div",
    { class: "tags" },
    outcomeBadge(outcomeOf(item)),
    isFlaky(item) ? flakyBadge() : null,
  );
}

/** `3/4` samples passed; a fractional score (rows of other programs) as the mean. */
function scoreOf(item: DocumentItem): string {
  const passed = item.score * item.samples;
  const whole = Math.round(passed);
  if (Math.abs(passed - whole) < 1e-9) return `${whole}/${item.samples}`;
  return item.score.toFixed(2);
}

function groupCell(item: DocumentItem): HTMLElement {
  const names = [item.stratum, ...item.tags].filter((name) => name !== "");
  return h("div", { class: "tags" }, ...names.map((name) => h("span", { class: "pill" }, name)));
}
