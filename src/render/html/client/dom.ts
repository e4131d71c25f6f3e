/**
 * Building DOM from data that may be hostile (model answers, stdout, ids): text goes in only
 * through text nodes, never as markup, so nothing in it can become an element or a script; and
 * every text and attribute shows its invisible controls as escapes (a bidi override in an answer
 * must not reorder what the reader sees).
 */
import { countOf } from "../../../report/gate.js";
import { fixed } from "../../numbers.js";
import { visible } from "../visible.js";

export { fixed, levelPercent, percent } from "../../numbers.js";

const SVG = "http://www.w3.org/2000/svg";

export type Child = Node | string | null | false;

export interface Props {
  class?: string;
  [attribute: string]: string | undefined;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  return build(document.createElement(tag), props, children);
}

/** An SVG element (the leaderboard's chart), built as `h` builds HTML. */
export function svg(tag: string, props: Props = {}, ...children: Child[]): SVGElement {
  return build(document.createElementNS(SVG, tag), props, children);
}

function build<E extends Element>(element: E, props: Props, children: readonly Child[]): E {
  for (const [name, value] of Object.entries(props)) {
    if (value !== undefined) element.setAttribute(name, visible(value));
  }
  for (const child of children) {
    if (child !== null && child !== false)
      element.append(typeof child === "string" ? visible(child) : child);
  }
  return element;
}

/** A paragraph; none when there is no text, so what a run lacks leaves no trace on its page. */
export function para(
  text: string | null | undefined,
  cls = "note",
  test?: string,
): HTMLElement | null {
  return text ? h("p", { class: cls, "data-test": test }, text) : null;
}

/**
 * A link to a file of a run folder: `base` (the page's folder to the run folder) and a path eb
 * wrote relative to the run folder, each segment encoded, so it stays a relative path.
 */
export function fileLink(label: string, base: string, relative: string): HTMLAnchorElement {
  const href = `${base}${relative}`.split("/").map(encodeURIComponent).join("/");
  return h("a", { href, rel: "noreferrer" }, label);
}

export function signed(value: number | null, digits = 3): string {
  if (value === null) return "n/a";
  return `${value >= 0 ? "+" : ""}${value.toFixed(digits)}`;
}

export function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** `1 item`, `1,200 items`: countOf with the page's numbers. */
export function counted(value: number, noun: string, many?: string): string {
  return countOf(value, noun, many, count);
}

/** `[low, high]`, each bound as `format` writes it. */
export function bounds(low: number | null, high: number | null, format = fixed): string {
  return `[${format(low)}, ${format(high)}]`;
}
