import type { RunDocument } from "../../../report/document.js";
import type { RunData } from "../model.js";
import { count, fixed, h, intervalBar, percent } from "./dom.js";

/** Pass rate with its interval drawn, the counts that qualify it, cost and latency. */
export function summaryView(run: RunData, heading: string): HTMLElement {
  const s = run.doc.stats;
  const ci = `${percent(s.ci_level)} CI [${fixed(s.ci_low)}, ${fixed(s.ci_high)}]`;
  const label = `pass rate ${fixed(s.pass_rate)}, ${ci}`;
  const hero = h(
    "div",
    { class: "hero" },
    h(
      "div",
      {},
      h("div", { class: "muted" }, "pass rate"),
      h("div", { class: "big", "data-test": "pass-rate" }, fixed(s.pass_rate)),
      h("div", { class: "ci", "data-test": "interval" }, `${ci} · ${s.ci_method}`),
    ),
    h(
      "div",
      {},
      intervalBar(s.pass_rate, s.ci_low, s.ci_high, { min: 0, max: 1 }, label),
      h("div", { class: "scale" }, h("span", {}, "0"), h("span", {}, "0.5"), h("span", {}, "1")),
      kLine(run.doc),
    ),
  );
  return h(
    "section",
    { class: "card", "aria-labelledby": "summary-title" },
    h("h2", { id: "summary-title" }, heading),
    hero,
    h("div", { class: "stats" }, ...stats(run.doc)),
    ...run.judges.map((line) => h("p", { class: "note", "data-test": "judge-noise" }, line)),
  );
}

function kLine(doc: RunDocument): HTMLElement | null {
  const { pass_at_k: atK, pass_hat_k: hatK } = doc.stats;
  if (!atK || !hatK) return null;
  return h(
    "p",
    { class: "note" },
    `pass@${atK.k} ${fixed(atK.estimate)} [${fixed(atK.ci_low)}, ${fixed(atK.ci_high)}] · ` +
      `pass^${hatK.k} ${fixed(hatK.estimate)} [${fixed(hatK.ci_low)}, ${fixed(hatK.ci_high)}] ` +
      `(any / all of ${atK.k} samples pass)`,
  );
}

function stats(doc: RunDocument): HTMLElement[] {
  const s = doc.stats;
  const share = s.samples > 0 ? percent(s.cached / s.samples) : "n/a";
  const { latency } = doc.summary;
  const cost = doc.run.cost;
  return [
    stat("items", count(s.items), `${count(s.passed)} samples passed`),
    stat(
      "samples",
      count(s.samples),
      `${s.items > 0 ? fixed(s.samples / s.items, 1) : "0"} per item`,
    ),
    stat("flaky", count(s.flaky), "between 0 and 1"),
    stat("errors", count(s.errors), "samples, scored 0"),
    stat("cached", share, `${count(s.cached)} of ${count(s.samples)} samples`),
    stat(
      "cost",
      cost === null ? "n/a" : `$${cost.toFixed(4)}`,
      cost === null ? "no price in [pricing]" : "target + judge",
    ),
    stat(
      "latency p50",
      latency ? `${Math.round(latency.p50)} ms` : "n/a",
      latency
        ? `p95 ${Math.round(latency.p95)} ms · ${count(latency.uncached)} uncached`
        : "no uncached samples",
    ),
  ];
}

export function stat(label: string, value: string, detail?: string): HTMLElement {
  return h(
    "div",
    { class: "stat" },
    h("div", { class: "label" }, label),
    h("div", { class: "value" }, value),
    detail === undefined ? null : h("div", { class: "detail" }, detail),
  );
}

/** Where the run came from: its id, tool version, commit, target, times and command. */
export function provenanceView(run: RunData, title: string): HTMLElement {
  const { doc } = run;
  const info = doc.run;
  const rows: [string, string | null][] = [
    ["run", doc.run_id],
    ["kind", doc.kind],
    ["eval-banana", info.tool_version],
    ["git commit", info.git_commit ?? (doc.kind ? "not in git" : null)],
    ["target", info.target],
    ["judge", info.judge],
    ["samples per item", info.samples_per_item === null ? null : String(info.samples_per_item)],
    ["started", doc.started_at],
    ["ended", doc.completed_at ?? (doc.started_at ? "never (the run did not finish)" : null)],
    ["duration", doc.duration_ms === null ? null : `${(doc.duration_ms / 1000).toFixed(1)} s`],
    ["resumed", info.resumes > 0 ? `${info.resumes} times` : null],
    ["shards", info.merged ? info.merged.shards.join(", ") : null],
    ["command", info.command],
    ["location", doc.output_dir],
  ];
  const list = h("dl", { class: "kv" });
  for (const [key, value] of rows) {
    if (value === null) continue;
    list.append(
      h("dt", {}, key),
      h("dd", { class: key === "git commit" || key === "command" ? "mono" : undefined }, value),
    );
  }
  const missing =
    doc.kind === null ? h("p", { class: "muted" }, "Rows without an eval-banana manifest.") : null;
  return h(
    "section",
    { class: "card", "data-test": "provenance" },
    h("h2", {}, title),
    list,
    missing,
  );
}
