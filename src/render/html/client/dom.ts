/**
 * Building DOM from data that may be hostile (model answers, stdout, ids): text goes in only
 * through text nodes, never as markup, so nothing in it can become an element or a script; and
 * every text and attribute shows its invisible controls as escapes (a bidi override in an answer
 * must not reorder what the reader sees).
 */
import { visible } from "../visible.js";

const SVG = "http://www.w3.org/2000/svg";

type Child = Node | string | null | false;

export interface Props {
  class?: string;
  [attribute: string]: string | undefined;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value !== undefined) element.setAttribute(name, visible(value));
  }
  append(element, children);
  return element;
}

/** An SVG element (the leaderboard's chart), built as `h` builds HTML. */
export function svg(tag: string, props: Props = {}, ...children: Child[]): SVGElement {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(props)) {
    if (value !== undefined) element.setAttribute(name, visible(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(visible(child)) : child);
  }
}

/**
 * A link to a file of a run folder: `base` (the page's folder to the run folder) and a path eb
 * wrote relative to the run folder, each segment encoded, so it stays a relative path.
 */
export function fileLink(label: string, base: string, relative: string): HTMLAnchorElement {
  const href = `${base}${relative}`.split("/").map(encodeURIComponent).join("/");
  return h("a", { href, rel: "noreferrer" }, label);
}

export function fixed(value: number | null, digits = 3): string {
  return value === null ? "n/a" : value.toFixed(digits);
}

export function signed(value: number, digits = 3): string {
  return `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`;
}

export function percent(value: number): string {
  return `${Math.round(value * 1000) / 10}%`;
}

export function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** A horizontal interval bar on [min, max]: the band is the interval, the dot the estimate. */
export function intervalBar(
  estimate: number | null,
  low: number | null,
  high: number | null,
  scale: { min: number; max: number; marks?: { at: number; class: string; label: string }[] },
  label: string,
): HTMLElement {
  const at = (value: number) => `${((value - scale.min) / (scale.max - scale.min)) * 100}%`;
  const bar = h("div", { class: "ibar", role: "img", "aria-label": label });
  for (const mark of scale.marks ?? []) {
    const line = h("span", { class: mark.class, title: mark.label });
    line.style.left = at(mark.at);
    bar.append(line);
  }
  if (low !== null && high !== null) {
    const band = h("span", { class: "band" });
    band.style.left = at(low);
    band.style.width = `calc(${at(high)} - ${at(low)})`;
    bar.append(band);
  }
  if (estimate !== null) {
    const dot = h("span", { class: "dot" });
    dot.style.left = at(estimate);
    bar.append(dot);
  }
  return bar;
}

/** `95%`, `97.5%`: an interval's level as the text renderers write it. */
export function levelPercent(level: number): string {
  return `${Number((level * 100).toFixed(2))}%`;
}

export function money(value: number | null): string {
  return value === null ? "unknown" : `$${value.toFixed(4)}`;
}
