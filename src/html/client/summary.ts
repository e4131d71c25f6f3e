import type { RunView } from "../model.js";
import { count, fixed, h, intervalBar, percent } from "./dom.js";

/** Pass rate with its interval drawn, the counts that qualify it, cost and latency. */
export function summaryView(run: RunView, heading: string): HTMLElement {
  const s = run.stats;
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
      kLine(run),
    ),
  );
  return h(
    "section",
    { class: "card", "aria-labelledby": "summary-title" },
    h("h2", { id: "summary-title" }, heading),
    run.notRun
      ? h(
          "p",
          { class: "warn", "data-test": "not-run" },
          `⚠ ${run.notRun}. The figures are over the items that ran.`,
        )
      : null,
    hero,
    h("div", { class: "stats" }, ...stats(run)),
    ...run.judges.map((line) => h("p", { class: "note", "data-test": "judge-noise" }, line)),
  );
}

function kLine(run: RunView): HTMLElement | null {
  const { pass_at_k: atK, pass_hat_k: hatK } = run.stats;
  if (!atK || !hatK) return null;
  return h(
    "p",
    { class: "note" },
    `pass@${atK.k} ${fixed(atK.estimate)} [${fixed(atK.ci_low)}, ${fixed(atK.ci_high)}] · ` +
      `pass^${hatK.k} ${fixed(hatK.estimate)} [${fixed(hatK.ci_low)}, ${fixed(hatK.ci_high)}] ` +
      `(any / all of ${atK.k} samples pass)`,
  );
}

function stats(run: RunView): HTMLElement[] {
  const s = run.stats;
  const share = s.samples > 0 ? percent(s.cached / s.samples) : "n/a";
  const latency = run.latency;
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
      run.cost === null ? "n/a" : `$${run.cost.toFixed(4)}`,
      run.cost === null ? "no price in [pricing]" : "target + judge",
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

/** Tool version, commit, times, command and every definition's digest. */
export function manifestView(run: RunView, title = "Manifest"): HTMLElement {
  const m = run.manifest;
  const section = h("section", { class: "card" }, h("h2", {}, title));
  if (m === null) {
    section.append(
      h("p", { class: "muted" }, `${run.location}: rows without an eval-banana manifest.`),
    );
    return section;
  }
  const rows: [string, string | null][] = [
    ["run", m.runId],
    ["eval-banana", m.version],
    ["git commit", m.gitCommit ?? "not in git"],
    ["target", m.target],
    ["started", m.startedAt],
    ["ended", m.endedAt ?? "never (the run did not finish)"],
    ["interrupted", m.interrupted === null ? null : m.interrupted ? "yes" : "no"],
    ["command", m.command],
    ["location", run.location],
  ];
  const list = h("dl", { class: "kv" });
  for (const [key, value] of rows) {
    if (value === null) continue;
    list.append(
      h("dt", {}, key),
      h("dd", { class: key === "git commit" ? "mono" : undefined }, value),
    );
  }
  section.append(list);
  const defs = h("table", { class: "defs" });
  const body = h("tbody");
  for (const [name, digest] of m.definitions)
    body.append(h("tr", {}, h("td", {}, name), h("td", {}, digest)));
  defs.append(body);
  section.append(
    h("details", {}, h("summary", {}, `Definitions' digests (${m.definitions.length})`), defs),
  );
  return section;
}
