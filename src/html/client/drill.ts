import type { Capped, ItemView, SampleView } from "../model.js";
import { count, fileLink, h } from "./dom.js";
import type { Row } from "./items.js";
import { changeBadge, flakyBadge, isFlaky, outcomeBadge, outcomeOf } from "./status.js";

/**
 * The drill-down of one item, in a modal <dialog>: Esc closes it (the browser's own), and focus
 * goes back to the row that opened it.
 */
export function drillDown(messagesNote: string | null): {
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
    const { item } = row;
    title.textContent = item.id;
    badges.replaceChildren(
      outcomeBadge(outcomeOf(item)),
      ...(isFlaky(item) ? [flakyBadge()] : []),
      ...(row.change ? [changeBadge(row.change)] : []),
    );
    body.replaceChildren(...content(row, messagesNote));
    dialog.showModal();
    body.scrollTop = 0;
    close.focus();
  };
  return { element: dialog, open };
}

function content(row: Row, messagesNote: string | null): HTMLElement[] {
  const { item, base } = row;
  const parts: HTMLElement[] = [about(item, base !== null && base !== item ? base : null)];
  if (item.messages) {
    parts.push(
      h("h3", {}, "Messages"),
      ...item.messages.map((m) =>
        h("div", { class: "msg" }, h("div", { class: "role" }, m.role), h("pre", {}, m.content)),
      ),
    );
  } else if (messagesNote) {
    parts.push(h("h3", {}, "Messages"), h("p", { class: "note" }, messagesNote));
  }
  parts.push(h("h3", {}, "Samples"));
  const paired = row.change !== null && base !== null && base !== item;
  if (!paired) {
    parts.push(...item.samples.map((s) => sampleView(s)));
    return parts;
  }
  const samples = Math.max(base.samples.length, item.samples.length);
  for (let i = 0; i < samples; i++) {
    const before = base.samples[i];
    const after = item.samples[i];
    parts.push(
      h(
        "div",
        { class: "side", "data-test": `side-${i}` },
        h(
          "div",
          {},
          h("h4", {}, "Baseline"),
          before ? sampleView(before) : h("p", { class: "note" }, "no such sample"),
        ),
        h(
          "div",
          {},
          h("h4", {}, "Candidate"),
          after ? sampleView(after) : h("p", { class: "note" }, "no such sample"),
        ),
      ),
    );
  }
  return parts;
}

function about(item: ItemView, base: ItemView | null): HTMLElement {
  const list = h("dl", { class: "kv" });
  const add = (key: string, value: string | null) => {
    if (value) list.append(h("dt", {}, key), h("dd", {}, value));
  };
  add("description", item.description);
  add("definition", item.source);
  add("stratum", item.stratum);
  add("tags", item.tags.join(", "));
  add(
    "samples",
    `${item.passed} of ${item.n} passed${item.errors > 0 ? `, ${item.errors} errors` : ""}${item.cached > 0 ? `, ${item.cached} cached` : ""}`,
  );
  if (base)
    add(
      "baseline",
      `${base.passed} of ${base.n} passed${base.problem ? ` · ${base.problem}` : ""}`,
    );
  add("why it fell short", item.problem);
  return list;
}

function sampleView(sample: SampleView): HTMLElement {
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
      outcomeBadge(sample.status),
      h("span", { class: "muted" }, meta),
    ),
  );
  for (const [label, text] of [
    ["answer", sample.answer],
    ["judge prompt", sample.prompt],
    ["stdout", sample.stdout],
    ["stderr", sample.stderr],
  ] as const) {
    if (text) card.append(textBlock(label, text));
  }
  if (sample.marks.length > 0) card.append(marks(sample));
  // A case's reason repeats its graders' reasons; a check's (or a judge's) is its only one.
  const explained = sample.marks.some((mark) => mark.reason !== null);
  if (sample.reason && !explained) {
    card.append(
      h("p", { "data-test": "reason" }, h("span", { class: "muted" }, "reason: "), sample.reason),
    );
  }
  if (sample.error) card.append(h("p", { class: "warn" }, `error: ${sample.error}`));
  if (sample.links.length > 0) {
    card.append(
      h("div", { class: "links" }, ...sample.links.map((link) => fileLink(link.label, link.href))),
    );
  }
  return card;
}

function marks(sample: SampleView): HTMLElement {
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

/** An answer or stream; when cut, it says how much was kept and links to the full file. */
function textBlock(label: string, text: Capped): HTMLElement {
  const block = h(
    "div",
    { class: "text-block", "data-test": label },
    h("div", { class: "label" }, label),
    h("pre", {}, text.text),
  );
  if (text.kept !== null) {
    const which = text.kept === "tail" ? "last" : "first";
    block.append(
      h(
        "p",
        { class: "note" },
        `Showing the ${which} ${count(text.text.length)} characters of ${count(text.total)} ${text.unit}. `,
        text.href
          ? fileLink("Full text", text.href)
          : "The full text is in the run folder (rows.jsonl).",
      ),
    );
  } else if (text.href) {
    block.append(h("div", { class: "links" }, fileLink(`${label} file`, text.href)));
  }
  return block;
}
