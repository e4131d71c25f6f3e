import type { RunDocument } from "../../../report/document.js";
import { sequentialRunText } from "../../compare-text.js";
import { itemCounts } from "../../item-status.js";
import type { RunData } from "../model.js";
import { heroCard, keyValues, type Stat, statsRow } from "./card.js";
import { bounds, count, counted, fixed, h, para, percent } from "./dom.js";

/** Pass rate with its interval drawn, the counts that qualify it, cost and latency. */
export function summaryView(run: RunData, heading: string): HTMLElement {
  const s = run.doc.stats;
  const ci = `${percent(s.ci_level)} CI ${bounds(s.ci_low, s.ci_high)}`;
  return heroCard({
    id: "summary",
    title: heading,
    lines: [
      { class: "muted", text: "pass rate" },
      { class: "big", test: "pass-rate", text: fixed(s.pass_rate) },
      { class: "ci", test: "interval", text: `${ci} · ${s.ci_method}` },
    ],
    bar: {
      estimate: s.pass_rate,
      low: s.ci_low,
      high: s.ci_high,
      scale: { min: 0, max: 1 },
      label: `pass rate ${fixed(s.pass_rate)}, ${ci}`,
      ticks: ["0", "0.5", "1"],
    },
    notes: [kLine(run.doc)],
    after: [
      statsRow(stats(run.doc)),
      ...run.judges.map((line) => para(line, "note", "judge-noise")),
    ],
  });
}

function kLine(doc: RunDocument): string | null {
  const { pass_at_k: atK, pass_hat_k: hatK } = doc.stats;
  if (!atK || !hatK) return null;
  return (
    `pass@${atK.k} ${fixed(atK.estimate)} ${bounds(atK.ci_low, atK.ci_high)} · ` +
    `pass^${hatK.k} ${fixed(hatK.estimate)} ${bounds(hatK.ci_low, hatK.ci_high)} ` +
    `(any / all of ${atK.k} samples pass)`
  );
}

function stats(doc: RunDocument): Stat[] {
  const s = doc.stats;
  const { latency } = doc.summary;
  const perItem = s.items > 0 ? fixed(s.samples / s.items, 1) : "0";
  const items = itemCounts(doc.items);
  return [
    [
      "items",
      count(s.items),
      `${count(items.passed)} passed, ${count(items.failed)} failed, ${count(items.error)} errored`,
    ],
    ["samples", count(s.samples), `${count(s.passed)} passed, ${perItem} per item`],
    ["flaky", count(s.flaky), "between 0 and 1"],
    ["errors", count(s.errors), "samples, scored 0"],
    [
      "cached",
      s.samples > 0 ? percent(s.cached / s.samples) : "n/a",
      `${count(s.cached)} of ${counted(s.samples, "sample")}`,
    ],
    ...costStat(doc),
    latency
      ? [
          "latency p50",
          `${Math.round(latency.p50)} ms`,
          `p95 ${Math.round(latency.p95)} ms · ${count(latency.uncached)} uncached`,
        ]
      : ["latency p50", "n/a", "no uncached samples"],
  ];
}

/**
 * The cost, where one can apply: a run that recorded no tokens (deterministic checks, a command
 * target) has none to show, not "n/a".
 */
function costStat(doc: RunDocument): Stat[] {
  const { target, judge } = doc.summary.tokens;
  if (target.length === 0 && judge === null) return [];
  const cost = doc.run.cost;
  if (cost === null) return [["cost", "n/a", "no price in [pricing]"]];
  return [["cost", `$${cost.toFixed(4)}`, "target + judge"]];
}

/** Where the run came from: its id, tool version, commit, target, times and command. */
export function provenanceView(run: RunData, title: string): HTMLElement {
  const { doc } = run;
  const info = doc.run;
  const seconds = doc.duration_ms === null ? null : `${(doc.duration_ms / 1000).toFixed(1)} s`;
  return h(
    "section",
    { class: "card", "data-test": "provenance" },
    h("h2", {}, title),
    keyValues([
      ["run", doc.run_id],
      ["kind", doc.kind],
      ["eval-banana", info.tool_version],
      ["git commit", info.git_commit ?? (doc.kind ? "not in git" : null), true],
      ["target", info.target],
      ["judge", info.judge],
      ["samples per item", samplesPerItem(info)],
      ["started", doc.started_at],
      ["ended", doc.completed_at ?? (doc.started_at ? "never (the run did not finish)" : null)],
      ["duration", seconds],
      ["resumed", info.resumes > 0 ? counted(info.resumes, "time") : null],
      ["shards", info.merged ? info.merged.shards.join(", ") : null],
      ["command", info.command, true],
      ["location", doc.output_dir],
    ]),
    para(doc.kind === null ? "Rows without an eval-banana manifest." : null, "muted"),
  );
}

/** k, or what a sequential run planned: it draws its samples until it stops. */
function samplesPerItem(info: RunDocument["run"]): string | null {
  if (info.sequential) return sequentialRunText(info.sequential);
  return info.samples_per_item === null ? null : String(info.samples_per_item);
}
