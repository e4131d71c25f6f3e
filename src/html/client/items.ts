import type { Change, ItemView, PageModel } from "../model.js";
import { count, h } from "./dom.js";
import { changeBadge, flakyBadge, isFlaky, outcomeBadge, outcomeOf } from "./status.js";

/** Rows drawn at once: 10,000 items stay as fast as 100. */
const PAGE_ROWS = 100;

/** A row of the table: the candidate's item (or the baseline's, for an item the candidate lost). */
export interface Row {
  item: ItemView;
  base: ItemView | null;
  change: Change | null;
  /** Lower-cased id, stratum, tags and reason, for the search box. */
  haystack: string;
}

interface Filter {
  key: string;
  label: string;
  keep: (row: Row) => boolean;
}

const RUN_FILTERS: Filter[] = [
  { key: "all", label: "All", keep: () => true },
  { key: "failed", label: "Failed", keep: (row) => row.item.problem !== null },
  { key: "errors", label: "Errors", keep: (row) => row.item.errors > 0 },
  { key: "flaky", label: "Flaky", keep: (row) => isFlaky(row.item) },
];

const COMPARE_FILTERS: Filter[] = [
  { key: "broke", label: "Broke", keep: (row) => row.change === "broke" },
  { key: "fixed", label: "Fixed", keep: (row) => row.change === "fixed" },
  { key: "changed", label: "Changed", keep: (row) => row.change !== null && row.change !== "same" },
];

export function rowsOf(model: PageModel): Row[] {
  const changes = model.compare?.changes ?? null;
  const baseById = new Map((model.base?.items ?? []).map((item) => [item.id, item]));
  const rows = model.run.items.map((item) => rowOf(item, baseById.get(item.id) ?? null, changes));
  const candIds = new Set(model.run.items.map((item) => item.id));
  for (const item of model.base?.items ?? []) {
    if (!candIds.has(item.id)) rows.push(rowOf(item, item, changes));
  }
  return rows;
}

function rowOf(item: ItemView, base: ItemView | null, changes: Record<string, Change> | null): Row {
  const haystack = [item.id, item.stratum, ...item.tags, item.problem ?? ""]
    .join("\n")
    .toLowerCase();
  return { item, base, change: changes?.[item.id] ?? null, haystack };
}

/**
 * The items table: filter buttons (aria-pressed), a search box, one page of rows at a time.
 * A row is focusable; Enter or a click opens its drill-down.
 */
export function itemsView(
  rows: readonly Row[],
  compare: boolean,
  open: (row: Row, from: HTMLElement) => void,
): HTMLElement {
  const filters = compare ? [...RUN_FILTERS, ...COMPARE_FILTERS] : RUN_FILTERS;
  const state = { filter: filters[0]!, query: "", page: 0, shown: [] as readonly Row[] };
  const buttons = filters.map((filter) => {
    const button = h(
      "button",
      { type: "button", class: "filter", "aria-pressed": "false", "data-filter": filter.key },
      filter.label,
      h("span", { class: "count" }, count(rows.filter(filter.keep).length)),
    );
    button.addEventListener("click", () => {
      state.filter = filter;
      state.page = 0;
      update();
    });
    return button;
  });
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
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, "Status"),
    compare ? h("th", { scope: "col" }, "Change") : null,
    h("th", { scope: "col" }, "Item"),
    h("th", { scope: "col" }, "Stratum / tags"),
    h("th", { scope: "col" }, compare ? "Baseline → candidate" : "Passed"),
    h("th", { scope: "col" }, "Why it fell short"),
  );
  const table = h("table", { class: "items" }, h("thead", {}, head), body);

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
    body.replaceChildren(...slice.map((row) => tableRow(row, compare, open)));
    if (slice.length === 0) {
      body.append(
        h("tr", {}, h("td", { colspan: compare ? "6" : "5", class: "empty" }, "No item matches.")),
      );
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
    h("h2", { id: "items-title" }, "Items"),
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

function tableRow(
  row: Row,
  compare: boolean,
  open: (row: Row, from: HTMLElement) => void,
): HTMLElement {
  const { item } = row;
  const score = compare && row.base ? `${scoreOf(row.base)} → ${scoreOf(item)}` : scoreOf(item);
  const tr = h(
    "tr",
    { tabindex: "0", "data-id": item.id, title: "Enter or click: details" },
    h(
      "td",
      {},
      h(
        "div",
        { class: "tags" },
        outcomeBadge(outcomeOf(item)),
        isFlaky(item) ? flakyBadge() : null,
      ),
    ),
    compare ? h("td", {}, row.change ? changeBadge(row.change) : null) : null,
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

/** `3/4` samples passed; a fractional score (rows of other programs) as the mean. */
function scoreOf(item: ItemView): string {
  if (Number.isInteger(item.passed)) return `${item.passed}/${item.n}`;
  return (item.passed / item.n).toFixed(2);
}

function groupCell(item: ItemView): HTMLElement {
  const names = [item.stratum, ...item.tags].filter((name) => name !== "");
  return h("div", { class: "tags" }, ...names.map((name) => h("span", { class: "pill" }, name)));
}
