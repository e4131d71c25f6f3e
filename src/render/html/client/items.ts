import type { DocumentItem } from "../../../report/document.js";
import { passedOf } from "../../numbers.js";
import { type Child, count, counted, h, type Props } from "./dom.js";
import { FILTERS, type Filter, type Mode, type Row } from "./rows.js";
import { changeBadge, itemBadges, pairBadge, pairCounts } from "./status.js";

/** Rows drawn at once: 10,000 items stay as fast as 100. */
const PAGE_ROWS = 100;

/** A column of the items table: its heading, its cells' class, and what a row shows there. */
interface Column {
  heading: string;
  class?: string;
  cell: (row: Row) => Child;
}

const tags = (props: Props, badges: HTMLElement[]) =>
  h("div", { class: "tags", ...props }, ...badges);
const STATUS: Column = { heading: "Status", cell: (row) => tags({}, itemBadges(row.side.item)) };
/** A pairwise case's count of each outcome, worst first. */
const PAIRS: Column = {
  heading: "Status",
  cell: (row) =>
    tags(
      { "data-test": "pairs" },
      pairCounts(row.pairs ?? []).map((c) => pairBadge(...c)),
    ),
};
const CHANGE: Column = { heading: "Change", cell: (row) => row.change && changeBadge(row.change) };
const ITEM: Column = { heading: "Item", class: "id", cell: (row) => row.side.item.id };
const GROUP: Column = { heading: "Stratum / tags", cell: (row) => groupCell(row.side.item) };
const passed = (item: DocumentItem) => passedOf(item.score, item.samples);
const score = (heading: string): Column => ({
  heading,
  class: "score",
  cell: (row) => `${row.base ? `${passed(row.base.item)} → ` : ""}${passed(row.side.item)}`,
});
const reason = (heading: string): Column => ({
  heading,
  class: "reason",
  cell: (row) => row.side.item.problem ?? "",
});

const WHY = reason("Why it fell short");

/** Each list's title and columns. */
const TABLES: Record<Mode, { title: string; columns: Column[] }> = {
  run: {
    title: "Items, worst first",
    columns: [STATUS, ITEM, GROUP, score("Passed"), WHY],
  },
  compare: {
    title: "Items, what changed first",
    columns: [STATUS, CHANGE, ITEM, GROUP, score("Baseline → candidate"), WHY],
  },
  pairwise: {
    title: "Items, worst first",
    columns: [PAIRS, ITEM, GROUP, score("Candidate won"), reason("First verdict short of a win")],
  },
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
  const { title, columns } = TABLES[mode];
  const state = { filter: filters[0]!, query: "", page: 0 };
  const change = (to: Partial<typeof state>) => {
    Object.assign(state, to);
    update();
  };
  const buttons = filters.map((filter) =>
    filterButton(filter, rows, () => change({ filter, page: 0 })),
  );
  const search = h("input", {
    type: "search",
    placeholder: "Search id, stratum, tag or reason",
    "aria-label": "Search items",
  });
  search.addEventListener("input", () =>
    change({ query: search.value.trim().toLowerCase(), page: 0 }),
  );
  const body = h("tbody");
  const status = h("span", { "aria-live": "polite", "data-test": "shown" });
  const prev = h("button", { type: "button" }, "‹ Previous");
  const next = h("button", { type: "button" }, "Next ›");
  prev.addEventListener("click", () => change({ page: state.page - 1 }));
  next.addEventListener("click", () => change({ page: state.page + 1 }));
  const head = h("tr", {}, ...columns.map((column) => h("th", { scope: "col" }, column.heading)));

  function update(): void {
    for (const button of buttons) {
      button.setAttribute("aria-pressed", String(button.dataset.filter === state.filter.key));
    }
    const { filter, query } = state;
    const shown = rows.filter(
      (row) => filter.keep(row) && (query === "" || row.haystack.includes(query)),
    );
    const pages = Math.max(1, Math.ceil(shown.length / PAGE_ROWS));
    state.page = Math.min(Math.max(0, state.page), pages - 1);
    const start = state.page * PAGE_ROWS;
    const slice = shown.slice(start, start + PAGE_ROWS);
    body.replaceChildren(...slice.map((row) => tableRow(row, columns, open)));
    if (slice.length === 0) {
      const none = h("td", { colspan: String(columns.length), class: "empty" }, "No item matches.");
      body.append(h("tr", {}, none));
    }
    status.textContent =
      shown.length === 0
        ? "no items"
        : `${count(start + 1)}–${count(start + slice.length)} of ${counted(shown.length, "item")}`;
    prev.disabled = state.page === 0;
    next.disabled = state.page >= pages - 1;
  }

  update();
  return h(
    "section",
    { class: "card", "aria-labelledby": "items-title" },
    h("h2", { id: "items-title" }, title),
    h(
      "div",
      { class: "toolbar" },
      h("div", { class: "filters", role: "group", "aria-label": "Filter items" }, ...buttons),
      search,
    ),
    h("table", { class: "items" }, h("thead", {}, head), body),
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

function tableRow(
  row: Row,
  columns: readonly Column[],
  open: (row: Row, from: HTMLElement) => void,
): HTMLElement {
  const tr = h(
    "tr",
    { tabindex: "0", "data-id": row.side.item.id, title: "Enter or click: details" },
    ...columns.map((column) => h("td", { class: column.class }, column.cell(row))),
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

function groupCell(item: DocumentItem): HTMLElement {
  const names = [item.stratum, ...item.tags].filter((name) => name !== "");
  return tags(
    {},
    names.map((name) => h("span", { class: "pill" }, name)),
  );
}
