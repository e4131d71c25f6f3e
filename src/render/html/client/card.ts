/** The parts of the cards: an interval drawn on a scale, figures, and lists of keys and values. */
import { bounds, type Child, h, type Props, para } from "./dom.js";

type Interval = Record<"estimate" | "low" | "high", number | null>;
type Mark = { at: number; class: string; label: string };
type Scale = { min: number; max: number; marks?: Mark[] };

/** 0 and the margin below it, on a scale of deltas. */
export function marginMarks(margin: number, zero: string): Mark[] {
  return [
    { at: 0, class: "zero", label: zero },
    { at: -margin, class: "margin", label: `margin −${margin}` },
  ];
}

/** A horizontal interval bar on [min, max]: the band is the interval, the dot the estimate. */
function intervalBar({ estimate, low, high }: Interval, scale: Scale, label: string): HTMLElement {
  const at = (value: number) => `${((value - scale.min) / (scale.max - scale.min)) * 100}%`;
  const bar = h("div", { class: "ibar", role: "img", "aria-label": label });
  const place = (cls: string, from: number, title?: string) => {
    const span = h("span", { class: cls, title });
    span.style.left = at(from);
    bar.append(span);
    return span;
  };
  for (const mark of scale.marks ?? []) place(mark.class, mark.at, mark.label);
  if (low !== null && high !== null) {
    place("band", low).style.width = `calc(${at(high)} - ${at(low)})`;
  }
  if (estimate !== null) place("dot", estimate);
  return bar;
}

/** The figures under a bar: its ends and middle. */
function scaleRow(ticks: readonly string[]): HTMLElement {
  return h("div", { class: "scale" }, ...ticks.map((tick) => h("span", {}, tick)));
}

/** A line of a hero's left column: a label or the verdict, then the big number, then its interval. */
type Line = { class: string; text: string; test?: string };

/** A card that leads with one figure: its lines, its interval drawn on a scale, and notes. */
interface Hero {
  /** The section is labelled by its heading, `#<id>-title`. */
  id: string;
  title: string;
  lines: readonly Line[];
  bar: Interval & { scale: Scale; label: string; ticks: readonly string[] };
  notes: readonly (string | null)[];
  /** What stands between the heading and the hero, and after the hero. */
  before?: readonly Child[];
  after: readonly Child[];
}

export function heroCard({ id, title, lines, bar, notes, before = [], after }: Hero): HTMLElement {
  return h(
    "section",
    { class: "card", "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title` }, title),
    ...before,
    h(
      "div",
      { class: "hero" },
      h("div", {}, ...lines.map((l) => h("div", { class: l.class, "data-test": l.test }, l.text))),
      h(
        "div",
        {},
        intervalBar(bar, bar.scale, bar.label),
        scaleRow(bar.ticks),
        ...notes.map((note) => para(note)),
      ),
    ),
    ...after,
  );
}

/** A gate's verdict as a hero's first line: `PASS`, `REGRESSION`, `INCONCLUSIVE`. */
export function verdictLine(verdict: string, test: string): Line {
  return { class: `verdict ${verdict}`, test, text: verdict.toUpperCase() };
}

/** A chart of one interval per row (a stratum, a tag), its figures written by `format`. */
interface Chart {
  title: string;
  note: string;
  rows: readonly (Interval & { name: string; detail: string })[];
  scale: Scale;
  format: (value: number | null) => string;
}

export function chartCard({ title, note, rows, scale, format }: Chart): HTMLElement {
  const chart = h("div", { class: "chart", "data-test": "chart" });
  for (const row of rows) {
    const figure = `${format(row.estimate)} ${bounds(row.low, row.high, format)}`;
    chart.append(
      h(
        "div",
        { class: "chart-row" },
        h("div", { class: "name", title: row.name }, row.name),
        intervalBar(row, scale, `${row.name}: ${figure}`),
        h("div", { class: "figure" }, figure, h("div", { class: "muted" }, row.detail)),
      ),
    );
  }
  const ends = [scale.min, (scale.min + scale.max) / 2, scale.max].map(String);
  return h(
    "section",
    { class: "card" },
    h("h2", {}, title),
    chart,
    h("div", { class: "chart-row" }, h("div"), scaleRow(ends), h("div")),
    para(note),
  );
}

/** A figure's label, value and what qualifies it. */
export type Stat = readonly [label: string, value: string, detail?: string];

export function statsRow(stats: readonly Stat[], props: Props = { class: "stats" }): HTMLElement {
  return h(
    "div",
    props,
    ...stats.map(([label, value, detail]) =>
      h(
        "div",
        { class: "stat" },
        h("div", { class: "label" }, label),
        h("div", { class: "value" }, value),
        detail === undefined ? null : h("div", { class: "detail" }, detail),
      ),
    ),
  );
}

/** A key, its value (left out when it has none) and whether the value is code. */
type KeyValue = readonly [key: string, value: string | null, mono?: boolean];

export function keyValues(rows: readonly KeyValue[]): HTMLElement {
  return h(
    "dl",
    { class: "kv" },
    ...rows.flatMap(([key, value, mono]) =>
      value ? [h("dt", {}, key), h("dd", { class: mono ? "mono" : undefined }, value)] : [],
    ),
  );
}
