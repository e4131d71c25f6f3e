import { escapeHtml } from "./escape-html.js";
import type { LeaderboardEntry, ParetoAxis } from "./leaderboard.js";
import { dollars, levelPercent, milliseconds } from "./leaderboard-text.js";

const WIDTH = 760;
const HEIGHT = 440;
const PLOT = { left: 70, right: 600, top: 24, bottom: 380 };
/** About this many steps along the x axis. */
const TICKS = 5;

const AXIS_NAME: Record<ParetoAxis, string> = {
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
export function paretoSvg(entries: readonly LeaderboardEntry[], axis: ParetoAxis, level: number) {
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
  const description =
    `Pass rate with its ${levelPercent(level)} interval against ${AXIS_NAME[axis]}, one point per run; ` +
    "diamonds joined by a dashed line are the Pareto front: runs no other run beats on both a higher pass rate and a lower " +
    (axis === "cost" ? "cost." : "latency.");
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="chart-title chart-desc">`,
    `<title id="chart-title">Pass rate against ${escapeHtml(AXIS_NAME[axis])}</title>`,
    `<desc id="chart-desc">${escapeHtml(description)}</desc>`,
    ...axes(x, y, axis),
    frontLine(entries, axis, x, y),
    ...entries.map((entry) => point(entry, axis, x, y, level)),
    ...legend(level),
    "</svg>",
  ].join("\n");
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

function axes(x: Scale, y: Scale, axis: ParetoAxis): string[] {
  const lines = [
    `<line class="axis" x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}"/>`,
    `<line class="axis" x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${PLOT.bottom}"/>`,
  ];
  for (const value of x.ticks) {
    const at = round(x.at(value));
    lines.push(
      `<line class="tick" x1="${at}" y1="${PLOT.bottom}" x2="${at}" y2="${PLOT.bottom + 5}"/>`,
      `<text class="tick-label" x="${at}" y="${PLOT.bottom + 20}" text-anchor="middle">${tickText(value, axis)}</text>`,
    );
  }
  for (const value of y.ticks) {
    const at = round(y.at(value));
    lines.push(
      `<line class="grid" x1="${PLOT.left}" y1="${at}" x2="${PLOT.right}" y2="${at}"/>`,
      `<text class="tick-label" x="${PLOT.left - 8}" y="${at + 4}" text-anchor="end">${value.toFixed(2)}</text>`,
    );
  }
  const middle = (PLOT.top + PLOT.bottom) / 2;
  lines.push(
    `<text class="axis-label" x="${(PLOT.left + PLOT.right) / 2}" y="${PLOT.bottom + 42}" text-anchor="middle">${escapeHtml(AXIS_NAME[axis])}</text>`,
    `<text class="axis-label" x="18" y="${middle}" text-anchor="middle" transform="rotate(-90 18 ${middle})">pass rate</text>`,
  );
  return lines;
}

function tickText(value: number, axis: ParetoAxis): string {
  if (axis === "latency_p50_ms") return String(Math.round(value));
  return `$${Number(value.toPrecision(6))}`;
}

/** The front as a staircase from the cheapest run up to the best: better costs more along it. */
function frontLine(entries: readonly LeaderboardEntry[], axis: ParetoAxis, x: Scale, y: Scale) {
  const front = entries
    .filter((e) => e.pareto_front)
    .map((e) => ({ x: round(x.at(e[axis] ?? 0)), y: round(y.at(e.pass_rate ?? 0)) }))
    .sort((a, b) => a.x - b.x);
  const steps = front.flatMap((p, i) => (i === 0 ? [p] : [{ x: p.x, y: front[i - 1]!.y }, p]));
  const points = steps.map((p) => `${p.x},${p.y}`).join(" ");
  return `<polyline class="front" points="${points}" fill="none"/>`;
}

function point(entry: LeaderboardEntry, axis: ParetoAxis, x: Scale, y: Scale, level: number) {
  const cx = round(x.at(entry[axis] ?? 0));
  const cy = round(y.at(entry.pass_rate ?? 0));
  const low = round(y.at(entry.ci_low ?? 0));
  const high = round(y.at(entry.ci_high ?? 0));
  const front = entry.pareto_front === true;
  const shape = front
    ? `<path class="mark front-mark" d="M${cx} ${cy - 7}L${cx + 7} ${cy}L${cx} ${cy + 7}L${cx - 7} ${cy}Z"/>`
    : `<circle class="mark" cx="${cx}" cy="${cy}" r="5"/>`;
  const price = axis === "cost" ? dollars(entry.cost) : milliseconds(entry.latency_p50_ms);
  const title =
    `#${entry.rank} ${entry.run_id}: pass rate ${entry.pass_rate?.toFixed(3) ?? "n/a"}, ` +
    `${levelPercent(level)} interval [${entry.ci_low?.toFixed(3) ?? "n/a"}, ${entry.ci_high?.toFixed(3) ?? "n/a"}], ` +
    `${price}${front ? ", on the Pareto front" : ""}`;
  return [
    `<g class="run" data-run="${escapeHtml(entry.run_id)}" data-pareto="${front}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<line class="interval" x1="${cx}" y1="${low}" x2="${cx}" y2="${high}"/>`,
    `<line class="interval" x1="${cx - 4}" y1="${low}" x2="${cx + 4}" y2="${low}"/>`,
    `<line class="interval" x1="${cx - 4}" y1="${high}" x2="${cx + 4}" y2="${high}"/>`,
    shape,
    `<text class="run-label" x="${cx + 10}" y="${cy - 6}">#${entry.rank}${front ? " (front)" : ""}</text>`,
    "</g>",
  ].join("");
}

function legend(level: number): string[] {
  const left = PLOT.right + 20;
  return [
    `<g class="legend" transform="translate(${left} ${PLOT.top + 10})">`,
    `<path class="mark front-mark" d="M7 0L14 7L7 14L0 7Z"/><text x="22" y="11">Pareto front</text>`,
    `<circle class="mark" cx="7" cy="31" r="5"/><text x="22" y="35">other run</text>`,
    `<line class="interval" x1="7" y1="48" x2="7" y2="66"/><text x="22" y="61">${levelPercent(level)} interval</text>`,
    `<text x="0" y="90">#n: rank in the table</text>`,
    "</g>",
  ];
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
