import type { DocumentItem, RunDocument } from "../report/document.js";
import { countOf } from "../report/gate.js";
import { head } from "../report/reason.js";
import { isFlaky, itemStatus } from "./item-status.js";
import { fixed } from "./numbers.js";

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
  /** The answer (a case's text, a check's stdout, else its stderr): already scrubbed. */
  stdout: string | null;
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
  return cutNote(value.length <= EXCERPT_CHARS ? value : head(value, EXCERPT_CHARS), value.length);
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

/** The `<testsuite>`: its name, and the run's wall time (null: unknown). */
export interface JunitSuite {
  name: string;
  ms: number | null;
}

/**
 * A `<testsuites>` document with one `<testsuite>` holding a `<testcase>` per item. Its `time`
 * is the suite's wall time: the items ran side by side, so their times add up to more.
 */
export function junitXml(suite: JunitSuite, items: readonly JunitItem[]): string {
  const count = (outcome: JunitItem["outcome"]) =>
    items.filter((item) => item.outcome === outcome).length;
  const totals = {
    tests: items.length,
    failures: count("failure"),
    errors: count("error"),
    skipped: count("skipped"),
    ...(suite.ms === null ? {} : { time: seconds(suite.ms) }),
  };
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attributes({ name: "eval-banana", ...totals })}>`,
    `  <testsuite${attributes({ name: suite.name, ...totals })}>`,
    ...items.map(testcase),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** For the items with no stratum and no check YAML (the article's rows). */
const NO_CLASS = "eval-banana";

const NOT_RUN = "not run: the run was interrupted";

/** The JUnit XML of a run: a testcase per item, then the planned items that never ran, skipped. */
export function runJunit(doc: RunDocument): string {
  return junitXml(suiteOf(doc), runItems(doc));
}

/** The suite as the run's manifest names it (`eb eval evals/cases.jsonl`), and its wall time. */
function suiteOf(doc: RunDocument): JunitSuite {
  return { name: doc.run.suite ?? doc.run_id ?? NO_CLASS, ms: doc.duration_ms };
}

function runItems(doc: RunDocument): JunitItem[] {
  const ran = doc.items.map((item): JunitItem => itemOf(item));
  const named = doc.not_run.map(({ id, stratum }) => skipped(stratum || NO_CLASS, id));
  const unnamed = doc.items_not_run - named.length;
  const counted = unnamed > 0 ? [skipped(NO_CLASS, `${countOf(unnamed, "item")} not run`)] : [];
  return [...ran, ...named, ...counted];
}

function itemOf(item: DocumentItem): JunitItem {
  const status = itemStatus(item);
  const outcome = status === "failed" ? "failure" : status;
  // The output of the first sample that fell short (the one the reason is about), else the first.
  const shown = item.outcomes.find((o) => o.status !== "passed") ?? item.outcomes[0];
  const ms = item.outcomes.reduce<number | null>(
    (sum, o) => (o.ms === null ? sum : (sum ?? 0) + o.ms),
    null,
  );
  return {
    // A check's YAML, a case's stratum: what a CI's test view groups by.
    classname: (item.type === null ? item.stratum : item.source) || NO_CLASS,
    name: item.id,
    ms,
    outcome,
    reason: item.problem,
    stdout: shown?.excerpt == null ? null : cutNote(shown.excerpt, shown.chars),
    flaky: isFlaky(item),
    samples: { passed: Math.round(item.score * item.samples), run: item.samples },
  };
}

/** A document's excerpt says where it was cut, as a long answer here would. */
function cutNote(excerpt: string, chars: number | null): string {
  if (chars === null || chars <= excerpt.length) return excerpt;
  return `${excerpt}\n[cut: ${chars} characters in all, the whole in the run folder]`;
}

function skipped(classname: string, name: string): JunitItem {
  return {
    classname,
    name,
    ms: null,
    outcome: "skipped",
    reason: NOT_RUN,
    stdout: null,
    flaky: false,
    samples: null,
  };
}

/**
 * `eb compare` as testcases: one per paired item, the candidate's, a failure when it broke
 * (its score dropped); then one for the gate, a failure when the gate failed (its exit code 1).
 */
export function compareJunit(base: RunDocument, cand: RunDocument): string {
  const compare = cand.compare;
  if (compare === null) return runJunit(cand);
  const broke = new Set(compare.broke);
  const baseItems = new Map(base.items.map((item) => [item.id, item]));
  const paired = runItems(cand).filter((item) => baseItems.has(item.name));
  const items = paired.map((item): JunitItem => {
    if (item.outcome === "skipped") return item;
    if (!broke.has(item.name)) return { ...item, outcome: "passed", reason: null };
    const before = baseItems.get(item.name)!;
    const now = item.samples && item.samples.passed / item.samples.run;
    return { ...item, outcome: "failure", reason: brokeReason(before.score, now, item.reason) };
  });
  return junitXml(suiteOf(cand), [...items, gateItem(cand)]);
}

/** Why an item broke: its scores in both runs, then why the candidate fell short. */
export function brokeReason(base: number, cand: number | null, reason: string | null): string {
  const drop = `baseline ${fixed(base, 2)} → candidate ${fixed(cand, 2)}`;
  return reason ? `${drop}; ${reason}` : drop;
}

function gateItem(cand: RunDocument): JunitItem {
  const { delta, ci_low, ci_high, margin, verdict, paired } = cand.compare!;
  const passed = cand.verdict.outcome === "passed";
  const verdictLine = `${verdict}: delta ${fixed(delta, 3)} [${fixed(ci_low, 3)}, ${fixed(ci_high, 3)}] over ${countOf(paired, "paired item")}, margin ${margin}`;
  return {
    classname: "eval-banana.compare",
    name: "gate",
    ms: null,
    outcome: passed ? "passed" : "failure",
    reason: passed ? null : verdictLine,
    stdout: verdictLine,
    flaky: false,
    samples: null,
  };
}
