import type { LeaderboardEntry } from "../../../report/blocks.js";
import { dollars, levelPercent, milliseconds } from "../../numbers.js";
import { svg } from "./dom.js";

export type ParetoAxis = NonNullable<LeaderboardEntry["pareto_axis"]>;

const WIDTH = 760;
const HEIGHT = 440;
const PLOT = { left: 70, right: 600, top: 24, bottom: 380 };
/** About this many steps along the x axis. */
const TICKS = 5;

export const AXIS_NAME: Record<ParetoAxis, string> = {
  cost: "cost (US dollars, [pricing])",
  latency_p50_ms: "latency p50 (ms, uncached samples)",
};

interface Scale {
  ticks: number[];
  at: (value: number) => number;
}

/**
 * Pass rate (with its interval as a vertical bar) against cost or latency, one point per run,
 * the Pareto front drawn as diamonds joined by a dashed line and named in text, so nothing is
 * told by colour alone. Every point carries data attributes (run, pareto) for tests and tools.
 */
export function paretoChart(entries: readonly LeaderboardEntry[], axis: ParetoAxis): SVGElement {
  const level = entries[0]?.ci_level ?? 0.95;
  // Loops, not Math.max(...entries): a spread of as many runs as given could overflow the stack.
  const x = scale(
    entries.reduce((most, e) => Math.max(most, e[axis] ?? 0), Number.NEGATIVE_INFINITY),
    PLOT.left,
    PLOT.right,
  );
  const low = entries.reduce(
    (least, e) => Math.min(least, e.ci_low ?? 0),
    Number.POSITIVE_INFINITY,
  );
  const high = entries.reduce(
    (most, e) => Math.max(most, e.ci_high ?? 1),
    Number.NEGATIVE_INFINITY,
  );
  const y = passRateScale(low, high);
  const baselines = labelBaselines(
    entries.map((e) => ({ x: round(x.at(e[axis] ?? 0)), y: round(y.at(e.pass_rate ?? 0)) })),
    entries.map(labelText),
  );
  const description =
    `Pass rate with its ${levelPercent(level)} interval against ${AXIS_NAME[axis]}, one point per run; ` +
    "diamonds joined by a dashed line are the Pareto front: runs no other run beats on both a higher pass rate and a lower " +
    (axis === "cost" ? "cost." : "latency.");
  return svg(
    "svg",
    {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      width: String(WIDTH),
      height: String(HEIGHT),
      role: "img",
      "aria-labelledby": "chart-title chart-desc",
      class: "pareto",
    },
    svg("title", { id: "chart-title" }, `Pass rate against ${AXIS_NAME[axis]}`),
    svg("desc", { id: "chart-desc" }, description),
    ...axes(x, y, axis),
    frontLine(entries, axis, x, y),
    ...entries.map((entry, i) => point(entry, axis, x, y, level, baselines[i]!)),
    legend(level),
  );
}

/** From 0 to a round number above the largest value, ticked at round steps. */
function scale(max: number, from: number, to: number): Scale {
  const step = roundStep((max > 0 ? max * 1.05 : 1) / TICKS);
  const top = Math.ceil((max > 0 ? max * 1.05 : 1) / step) * step;
  return { ticks: ticksOf(0, top, step), at: (value) => from + (value / top) * (to - from) };
}

/** From the lowest interval bound to the highest, on tenths (twentieths when short). */
function passRateScale(low: number, high: number): Scale {
  let min = Math.max(0, Math.floor(low * 10) / 10);
  const max = Math.min(1, Math.ceil(high * 10) / 10);
  if (max - min < 0.2) min = Math.max(0, max - 0.2);
  const span = max - min || 1;
  const step = span > 0.5 ? 0.1 : 0.05;
  return {
    ticks: ticksOf(min, max, step),
    at: (value) => PLOT.bottom - ((value - min) / span) * (PLOT.bottom - PLOT.top),
  };
}

/** 1, 2 or 5 times a power of ten, at least `rough`. */
function roundStep(rough: number): number {
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough * (1 - 1e-9))!;
}

function ticksOf(min: number, max: number, step: number): number[] {
  const count = Math.round((max - min) / step);
  return Array.from({ length: count + 1 }, (_, i) => min + i * step);
}

function line(cls: string, x1: number, y1: number, x2: number, y2: number): SVGElement {
  return svg("line", { class: cls, x1: `${x1}`, y1: `${y1}`, x2: `${x2}`, y2: `${y2}` });
}

function text(cls: string, x: number, y: number, anchor: string, content: string): SVGElement {
  return svg("text", { class: cls, x: `${x}`, y: `${y}`, "text-anchor": anchor }, content);
}

function axes(x: Scale, y: Scale, axis: ParetoAxis): SVGElement[] {
  const parts = [
    line("axis", PLOT.left, PLOT.bottom, PLOT.right, PLOT.bottom),
    line("axis", PLOT.left, PLOT.top, PLOT.left, PLOT.bottom),
  ];
  for (const value of x.ticks) {
    const at = round(x.at(value));
    parts.push(
      line("tick", at, PLOT.bottom, at, PLOT.bottom + 5),
      text("tick-label", at, PLOT.bottom + 20, "middle", tickText(value, axis)),
    );
  }
  for (const value of y.ticks) {
    const at = round(y.at(value));
    parts.push(
      line("grid", PLOT.left, at, PLOT.right, at),
      text("tick-label", PLOT.left - 8, at + 4, "end", value.toFixed(2)),
    );
  }
  const middle = (PLOT.top + PLOT.bottom) / 2;
  const label = text("axis-label", 18, middle, "middle", "pass rate");
  label.setAttribute("transform", `rotate(-90 18 ${middle})`);
  const center = (PLOT.left + PLOT.right) / 2;
  parts.push(text("axis-label", center, PLOT.bottom + 42, "middle", AXIS_NAME[axis]), label);
  return parts;
}

function tickText(value: number, axis: ParetoAxis): string {
  if (axis === "latency_p50_ms") return String(Math.round(value));
  return `$${Number(value.toPrecision(6))}`;
}

/** The front as a staircase from the cheapest run up to the best: better costs more along it. */
function frontLine(
  entries: readonly LeaderboardEntry[],
  axis: ParetoAxis,
  x: Scale,
  y: Scale,
): SVGElement {
  const front = entries
    .filter((e) => e.pareto_front)
    .map((e) => ({ x: round(x.at(e[axis] ?? 0)), y: round(y.at(e.pass_rate ?? 0)) }))
    .sort((a, b) => a.x - b.x);
  const steps = front.flatMap((p, i) => (i === 0 ? [p] : [{ x: p.x, y: front[i - 1]!.y }, p]));
  const points = steps.map((p) => `${p.x},${p.y}`).join(" ");
  return svg("polyline", { class: "front", points, fill: "none" });
}

/** A run's label beside its mark: its rank in the table. */
function labelText(entry: LeaderboardEntry): string {
  return `#${entry.rank}${entry.pareto_front === true ? " (front)" : ""}`;
}

/** About the width of a label's character and the height of its line, in the chart's units. */
const LABEL = { char: 7, line: 14 };

/**
 * Each label's baseline: beside its mark, moved up a line while it would overlap one placed
 * before it (runs of about the same price and pass rate would print their ranks over each other).
 */
function labelBaselines(
  marks: readonly { x: number; y: number }[],
  texts: readonly string[],
): number[] {
  const placed: { left: number; right: number; baseline: number }[] = [];
  return marks.map(({ x, y }, i) => {
    const left = x + 10;
    const right = left + texts[i]!.length * LABEL.char;
    let baseline = y - 6;
    const overlaps = (p: (typeof placed)[number]) =>
      p.left < right && left < p.right && Math.abs(p.baseline - baseline) < LABEL.line;
    while (placed.some(overlaps)) baseline -= LABEL.line;
    placed.push({ left, right, baseline });
    return baseline;
  });
}

function point(
  entry: LeaderboardEntry,
  axis: ParetoAxis,
  x: Scale,
  y: Scale,
  level: number,
  labelBaseline: number,
): SVGElement {
  const cx = round(x.at(entry[axis] ?? 0));
  const cy = round(y.at(entry.pass_rate ?? 0));
  const low = round(y.at(entry.ci_low ?? 0));
  const high = round(y.at(entry.ci_high ?? 0));
  const front = entry.pareto_front === true;
  const shape = front
    ? svg("path", {
        class: "mark front-mark",
        d: `M${cx} ${cy - 7}L${cx + 7} ${cy}L${cx} ${cy + 7}L${cx - 7} ${cy}Z`,
      })
    : svg("circle", { class: "mark", cx: `${cx}`, cy: `${cy}`, r: "5" });
  const price = axis === "cost" ? dollars(entry.cost) : milliseconds(entry.latency_p50_ms);
  const title =
    `#${entry.rank} ${entry.run_id}: pass rate ${entry.pass_rate?.toFixed(3) ?? "n/a"}, ` +
    `${levelPercent(level)} interval [${entry.ci_low?.toFixed(3) ?? "n/a"}, ${entry.ci_high?.toFixed(3) ?? "n/a"}], ` +
    `${price}${front ? ", on the Pareto front" : ""}`;
  return svg(
    "g",
    { class: "run", "data-run": entry.run_id, "data-pareto": String(front) },
    svg("title", {}, title),
    line("interval", cx, low, cx, high),
    line("interval", cx - 4, low, cx + 4, low),
    line("interval", cx - 4, high, cx + 4, high),
    shape,
    text("run-label", cx + 10, labelBaseline, "start", labelText(entry)),
  );
}

function legend(level: number): SVGElement {
  return svg(
    "g",
    { class: "legend", transform: `translate(${PLOT.right + 20} ${PLOT.top + 10})` },
    svg("path", { class: "mark front-mark", d: "M7 0L14 7L7 14L0 7Z" }),
    text("", 22, 11, "start", "Pareto front"),
    svg("circle", { class: "mark", cx: "7", cy: "31", r: "5" }),
    text("", 22, 35, "start", "other run"),
    line("interval", 7, 48, 7, 66),
    text("", 22, 61, "start", `${levelPercent(level)} interval`),
    text("", 0, 90, "start", "#n: rank in the table"),
  );
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
