import { writeWhole } from "./write-whole.js";

/** One item of a run (or of a comparison) as a JUnit `testcase`. */
export interface JunitItem {
  /** The check's YAML path relative to the project root, or the case's stratum. */
  classname: string;
  /** The item's id. */
  name: string;
  /** Summed over the item's samples; null when the rows do not say. */
  ms: number | null;
  /**
   * `error` when a sample errored, else `failure` when one failed (the default gate's rule);
   * `skipped` for an item the run planned and never ran.
   */
  outcome: "passed" | "failure" | "error" | "skipped";
  /** Why it fell short (or was not run), in one line; null when it passed. */
  reason: string | null;
  /** The answer (a case's text, a check's stdout), and a check's stderr: already scrubbed. */
  stdout: string | null;
  stderr: string | null;
  flaky: boolean;
  /** Samples that passed and ran; null for a testcase that is no item (compare's gate). */
  samples: { passed: number; run: number } | null;
}

/** Characters of an answer or a stream kept per testcase: enough to see it, not the whole file. */
export const EXCERPT_CHARS = 4000;

/**
 * What XML 1.0 cannot hold at all, not even as a character reference: C0 controls but tab, LF and
 * CR, lone surrogates, U+FFFE and U+FFFF. They are dropped; every other character is kept.
 */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const TEXT_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/** In an attribute, quotes too, and tab and newlines as references: a parser would fold them. */
const ATTRIBUTE_ESCAPES: Record<string, string> = {
  ...TEXT_ESCAPES,
  '"': "&quot;",
  "'": "&apos;",
  "\t": "&#9;",
  "\n": "&#10;",
  "\r": "&#13;",
};

function text(value: string): string {
  return value.replace(NOT_XML, "").replace(/[&<>]/g, (c) => TEXT_ESCAPES[c]!);
}

function attribute(value: string): string {
  return value.replace(NOT_XML, "").replace(/[&<>"'\t\n\r]/g, (c) => ATTRIBUTE_ESCAPES[c]!);
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => ` ${name}="${attribute(String(value))}"`)
    .join("");
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** The first EXCERPT_CHARS characters, marked where they were cut. */
function excerpt(value: string): string {
  if (value.length <= EXCERPT_CHARS) return value;
  const code = value.charCodeAt(EXCERPT_CHARS - 1);
  const end = code >= 0xd800 && code <= 0xdbff ? EXCERPT_CHARS - 1 : EXCERPT_CHARS;
  return `${value.slice(0, end)}\n[cut: ${value.length} characters in all, the whole in the run folder]`;
}

function testcase(item: JunitItem): string {
  const names = { classname: item.classname, name: item.name };
  const head = `    <testcase${attributes(item.ms === null ? names : { ...names, time: seconds(item.ms) })}>`;
  const samples = item.samples && `${item.samples.passed}/${item.samples.run} samples passed`;
  const detail = [samples, item.reason].filter(Boolean).join(": ");
  const body = [
    item.flaky ? '      <properties><property name="flaky" value="true"/></properties>' : "",
    outcomeElement(item, detail),
    item.stdout ? `      <system-out>${text(excerpt(item.stdout))}</system-out>` : "",
    item.stderr ? `      <system-err>${text(excerpt(item.stderr))}</system-err>` : "",
  ].filter((line) => line !== "");
  return [head, ...body, "    </testcase>"].join("\n");
}

function outcomeElement(item: JunitItem, detail: string): string {
  if (item.outcome === "passed") return "";
  if (item.outcome === "skipped")
    return `      <skipped${attributes({ message: item.reason ?? "" })}/>`;
  const values = { message: item.reason ?? detail, type: item.outcome };
  return `      <${item.outcome}${attributes(values)}>${text(detail)}</${item.outcome}>`;
}

/** A `<testsuites>` document with one `<testsuite>` holding a `<testcase>` per item. */
export function junitXml(suite: string, items: readonly JunitItem[]): string {
  const count = (outcome: JunitItem["outcome"]) =>
    items.filter((item) => item.outcome === outcome).length;
  const totals = {
    tests: items.length,
    failures: count("failure"),
    errors: count("error"),
    skipped: count("skipped"),
    time: seconds(items.reduce((sum, item) => sum + (item.ms ?? 0), 0)),
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: "eval-banana", ...totals })}>`,
    `  <testsuite${attributes({ name: suite, ...totals })}>`,
    ...items.map(testcase),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** Writes the document whole or not at all, its folders created. */
export async function writeJunit(
  file: string,
  suite: string,
  items: readonly JunitItem[],
): Promise<void> {
  await writeWhole(file, junitXml(suite, items), "--junit", "the JUnit XML");
}
