import type { DocumentItem, Outcome } from "../../../report/document.js";
import { keyValues } from "./card.js";
import { count, counted, fileLink, h } from "./dom.js";
import type { Row, Side } from "./rows.js";
import {
  changeBadge,
  itemBadges,
  outcomeBadge,
  type PairOutcome,
  pairBadge,
  pairCounts,
  pairOutcome,
} from "./status.js";

/**
 * The drill-down of one item, in a modal <dialog>: Esc closes it (the browser's own), and focus
 * goes back to the row that opened it.
 */
export function drillDown(): {
  element: HTMLDialogElement;
  open: (row: Row, from: HTMLElement) => void;
} {
  const title = h("h2", { id: "drill-title" });
  const badges = h("div", { class: "tags" });
  const close = h("button", { type: "button", "aria-label": "Close details" }, "Close (Esc)");
  const body = h("div", { class: "drill-body" });
  const dialog = h(
    "dialog",
    { "aria-labelledby": "drill-title" },
    h("div", { class: "drill-head" }, title, badges, close),
    body,
  );
  let opener: HTMLElement | null = null;
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => opener?.focus());
  // A click on the backdrop (outside the box) closes it too.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  const open = (row: Row, from: HTMLElement) => {
    opener = from;
    const { item } = row.side;
    title.replaceChildren(item.id);
    badges.replaceChildren(
      ...(row.pairs ? [] : itemBadges(item)),
      ...(row.change ? [changeBadge(row.change)] : []),
    );
    body.replaceChildren(...content(row));
    dialog.showModal();
    body.scrollTop = 0;
    close.focus();
  };
  return { element: dialog, open };
}

function content(row: Row): HTMLElement[] {
  const { side, base } = row;
  const paired = base !== null && base.item !== side.item;
  const parts: HTMLElement[] = [
    row.pairs ? aboutPairs(side.item, row.pairs) : about(side.item, paired ? base.item : null),
  ];
  const input = side.item.input ?? base?.item.input ?? null;
  if (input !== null) parts.push(h("h3", {}, "Input"), h("pre", { class: "input" }, input));
  parts.push(h("h3", {}, "Samples"));
  if (side.item.outcomes.length === 0 && !paired) {
    parts.push(h("p", { class: "note" }, "This page was built without the samples."));
  }
  if (!paired) {
    parts.push(...side.item.outcomes.map((s) => sampleView(s, side, row.pairs !== null)));
    return parts;
  }
  const samples = Math.max(base.item.outcomes.length, side.item.outcomes.length);
  for (let i = 0; i < samples; i++) {
    parts.push(
      h(
        "div",
        { class: "side", "data-test": `side-${i}` },
        h("div", {}, h("h4", {}, "Baseline"), sampleOrNone(base, i)),
        h("div", {}, h("h4", {}, "Candidate"), sampleOrNone(side, i)),
      ),
    );
  }
  return parts;
}

function sampleOrNone(side: Side, i: number): HTMLElement {
  const sample = side.item.outcomes[i];
  return sample ? sampleView(sample, side, false) : h("p", { class: "note" }, "no such sample");
}

function about(item: DocumentItem, base: DocumentItem | null): HTMLElement {
  return keyValues([
    ["description", item.description],
    ["definition", item.source],
    ["type", item.type],
    ["stratum", item.stratum],
    ["tags", item.tags.join(", ")],
    ["samples", samplesText(item)],
    ["baseline", base && `${samplesText(base)}${base.problem ? ` · ${base.problem}` : ""}`],
    ["why it fell short", item.problem],
  ]);
}

/** A pairwise case: how its pairs came out, and the first verdict that was no win. */
function aboutPairs(item: DocumentItem, pairs: readonly PairOutcome[]): HTMLElement {
  const counts = pairCounts(pairs).map(([o, n]) => `${n} ${o}`);
  return keyValues([
    ["stratum", item.stratum],
    ["pairs", counts.join(", ") || "none judged"],
    ["first short of a win", item.problem],
  ]);
}

function samplesText(item: DocumentItem): string {
  const passed = Math.round(item.score * item.samples * 100) / 100;
  const errors = item.errors > 0 ? `, ${counted(item.errors, "error")}` : "";
  const cached = item.cached > 0 ? `, ${item.cached} cached` : "";
  return `${passed} of ${counted(item.samples, "sample")} passed${errors}${cached}`;
}

function sampleView(sample: Outcome, side: Side, pairwise: boolean): HTMLElement {
  const meta = [
    sample.ms === null ? null : `${count(Math.round(sample.ms))} ms`,
    sample.cached ? "cached" : null,
  ]
    .filter((x) => x !== null)
    .join(" · ");
  const card = h(
    "div",
    { class: "sample", "data-sample": String(sample.sample) },
    h(
      "div",
      { class: "sample-head" },
      h("strong", {}, `Sample ${sample.sample}`),
      pairwise ? pairBadge(pairOutcome(sample)) : outcomeBadge(sample.status),
      h("span", { class: "muted" }, meta),
    ),
  );
  if (sample.excerpt !== null) card.append(excerptBlock(sample, side));
  if (sample.marks.length > 0) card.append(marks(sample));
  // A case's reason repeats its graders' reasons; a check's (or a judge's) is its only one.
  const explained = sample.marks.some((mark) => mark.reason !== null);
  if (sample.reason && !explained) {
    card.append(
      h("p", { "data-test": "reason" }, h("span", { class: "muted" }, "reason: "), sample.reason),
    );
  }
  if (sample.error) card.append(h("p", { class: "warn" }, `error: ${sample.error}`));
  if (sample.files.length > 0) {
    const links = sample.files.map((file) => fileLink(file.label, side.run.href, file.path));
    card.append(h("div", { class: "links" }, ...links));
  }
  return card;
}

function marks(sample: Outcome): HTMLElement {
  const body = h("tbody");
  for (const mark of sample.marks) {
    body.append(
      h(
        "tr",
        {},
        h("td", { class: "mono" }, mark.grader),
        h("td", {}, outcomeBadge(mark.passed ? "passed" : "failed")),
        h("td", {}, mark.reason ?? ""),
      ),
    );
  }
  return h(
    "table",
    { class: "marks" },
    h("thead", {}, h("tr", {}, h("th", {}, "Grader"), h("th", {}, "Mark"), h("th", {}, "Reason"))),
    body,
  );
}

/** A case's answer or a check's output; when cut, it says how much was kept and where the rest is. */
function excerptBlock(sample: Outcome, side: Side): HTMLElement {
  const label = side.run.doc.kind === "checks" ? "output" : "answer";
  const text = sample.excerpt ?? "";
  const block = h(
    "div",
    { class: "text-block", "data-test": label },
    h("div", { class: "label" }, label),
    h("pre", {}, text),
  );
  if (sample.chars !== null && sample.chars > text.length) {
    const where = sample.files.length > 0 ? "the files below" : "the run folder's rows.jsonl";
    block.append(
      h(
        "p",
        { class: "note" },
        `Showing the first ${count(text.length)} characters of ${count(sample.chars)}; the whole ${label} is in ${where}.`,
      ),
    );
  }
  return block;
}
