/**
 * The page's stylesheet. Colours meet WCAG AA (4.5:1 for text) in both schemes; every pass,
 * fail or error also says so in words and with an icon, never by colour alone.
 */
export const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --surface: #ffffff; --surface-2: #f0f2f5; --border: #d9dde3;
  --text: #1c2024; --muted: #57606a; --accent: #0b57d0; --brand: #f5c518;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #c4222d; --fail-bg: #ffebe9;
  --error: #8a5a00; --error-bg: #fff3c4; --flaky: #6639ba; --flaky-bg: #f0e8ff;
  --band: #9ec1f7; --whisker: #2563c9; --focus: #0b57d0;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1115; --surface: #171a21; --surface-2: #1f232c; --border: #30363f;
    --text: #e6e8eb; --muted: #9ea7b3; --accent: #7cacf8; --brand: #f5c518;
    --pass: #4ac26b; --pass-bg: #12301c; --fail: #ff7b72; --fail-bg: #3d1418;
    --error: #e3b341; --error-bg: #3a2a05; --flaky: #c6a6ff; --flaky-bg: #2a1f45;
    --band: #2f5597; --whisker: #8fb8fa; --focus: #7cacf8;
  }
}
* { box-sizing: border-box; }
html { font-size: 15px; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 1rem/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
main { max-width: 1180px; margin: 0 auto; padding: 20px 24px 48px; }
header.top { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; margin-bottom: 16px; }
.logo { width: 28px; height: 28px; border-radius: 8px; background: var(--brand); display: grid;
  place-items: center; font-weight: 700; color: #1c2024; font-size: 16px; }
header.top h1 { font-size: 1.25rem; margin: 0; font-weight: 650; }
header.top .sub { color: var(--muted); font-size: .9rem; }
.pill { display: inline-flex; align-items: center; gap: 4px; padding: 1px 8px; border-radius: 999px;
  font-size: .8rem; font-weight: 600; border: 1px solid var(--border); background: var(--surface-2);
  white-space: nowrap; }
.pill.pass { color: var(--pass); background: var(--pass-bg); border-color: transparent; }
.pill.fail { color: var(--fail); background: var(--fail-bg); border-color: transparent; }
.pill.error { color: var(--error); background: var(--error-bg); border-color: transparent; }
.pill.flaky { color: var(--flaky); background: var(--flaky-bg); border-color: transparent; }
section.card { background: var(--surface); border: 1px solid var(--border); border-radius: 12px;
  padding: 18px 20px; margin-bottom: 16px; }
section.card > h2 { font-size: 1rem; margin: 0 0 12px; font-weight: 650; }
.muted { color: var(--muted); }
.note { color: var(--muted); font-size: .85rem; margin: 6px 0 0; }
.hero { display: grid; grid-template-columns: minmax(240px, 1fr) 2fr; gap: 24px; align-items: center; }
@media (max-width: 760px) { .hero { grid-template-columns: 1fr; } }
.big { font-size: 2.6rem; font-weight: 700; letter-spacing: -0.02em; line-height: 1.1;
  font-variant-numeric: tabular-nums; }
.ci { color: var(--muted); font-variant-numeric: tabular-nums; }
.ibar { position: relative; height: 22px; margin: 10px 0 4px; border-radius: 6px; background: var(--surface-2);
  border: 1px solid var(--border); }
.ibar .band { position: absolute; top: 3px; bottom: 3px; background: var(--band); border-radius: 2px;
  border-left: 2px solid var(--whisker); border-right: 2px solid var(--whisker); }
.ibar .dot { position: absolute; top: -3px; bottom: -3px; width: 3px; margin-left: -1.5px;
  background: var(--text); border-radius: 2px; }
.ibar .zero, .ibar .margin { z-index: 1; }
.ibar .zero { position: absolute; top: -4px; bottom: -4px; width: 1px; background: var(--muted); }
.ibar .margin { position: absolute; top: -5px; bottom: -5px; width: 0; border-left: 3px dashed var(--fail); }
.scale { display: flex; justify-content: space-between; color: var(--muted); font-size: .75rem;
  font-variant-numeric: tabular-nums; }
.stats { margin-top: 16px; display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: 10px; }
.stat { background: var(--surface-2); border-radius: 10px; padding: 10px 12px; }
.stat .label { color: var(--muted); font-size: .78rem; text-transform: uppercase; letter-spacing: .04em; }
.stat .value { font-size: 1.25rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.stat .detail { color: var(--muted); font-size: .8rem; }
dl.kv { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; font-size: .9rem; }
dl.kv dt { color: var(--muted); }
dl.kv dd { margin: 0; overflow-wrap: anywhere; }
code, pre, .mono { font-family: var(--mono); font-size: .85rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--border); vertical-align: top; }
th { font-size: .78rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; }
.chart { width: 100%; }
.chart-row { display: grid; grid-template-columns: minmax(120px, 220px) 1fr 200px; gap: 12px;
  align-items: center; padding: 5px 0; }
.chart-row .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.chart-row .figure { font-variant-numeric: tabular-nums; text-align: right; font-size: .9rem; }
.chart-row .ibar { margin: 0; }
.toolbar { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin-bottom: 10px; }
.filters { display: flex; flex-wrap: wrap; gap: 6px; }
button { font: inherit; color: inherit; }
.filter { border: 1px solid var(--border); background: var(--surface); border-radius: 999px;
  padding: 4px 12px; cursor: pointer; font-size: .88rem; }
.filter[aria-pressed="true"] { background: var(--text); color: var(--surface); border-color: var(--text); }
.filter .count { opacity: .75; margin-left: 4px; font-variant-numeric: tabular-nums; }
input[type="search"] { flex: 1 1 240px; min-width: 200px; padding: 6px 12px; border-radius: 8px;
  border: 1px solid var(--border); background: var(--surface); color: var(--text); font: inherit; }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
table.items tbody tr { cursor: pointer; }
table.items tbody tr:hover { background: var(--surface-2); }
table.items tbody tr:focus-visible { outline-offset: -2px; }
table.items td.id { font-family: var(--mono); font-size: .85rem; overflow-wrap: anywhere; min-width: 14ch; }
table.items td.score { font-variant-numeric: tabular-nums; white-space: nowrap; }
table.items td.reason { color: var(--muted); font-size: .88rem; overflow-wrap: anywhere; }
.tags { display: flex; flex-wrap: wrap; gap: 4px; }
.pager { display: flex; gap: 8px; align-items: center; justify-content: flex-end; margin-top: 10px;
  color: var(--muted); font-size: .88rem; }
.pager button { border: 1px solid var(--border); background: var(--surface); border-radius: 8px;
  padding: 3px 10px; cursor: pointer; }
.pager button:disabled { opacity: .4; cursor: default; }
.empty { padding: 24px; text-align: center; color: var(--muted); }
dialog { width: min(1100px, 96vw); max-height: 92vh; border: 1px solid var(--border); border-radius: 14px;
  padding: 0; background: var(--surface); color: var(--text); }
dialog::backdrop { background: rgba(10, 12, 16, .55); }
.drill-head { position: sticky; top: 0; display: flex; gap: 10px; align-items: center; padding: 14px 18px;
  background: var(--surface); border-bottom: 1px solid var(--border); z-index: 1; }
.drill-head h2 { margin: 0; font-size: 1.05rem; font-family: var(--mono); overflow-wrap: anywhere; flex: 1; }
.drill-head button { border: 1px solid var(--border); background: var(--surface-2); border-radius: 8px;
  padding: 4px 12px; cursor: pointer; }
.drill-body { padding: 16px 18px 20px; }
.drill-body h3 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted);
  margin: 18px 0 8px; }
.sample pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; }
.sample { border: 1px solid var(--border); border-radius: 10px; padding: 10px 12px; margin: 8px 0; background: var(--surface); }
.sample-head { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; font-size: .88rem; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
@media (max-width: 760px) { .side { grid-template-columns: 1fr; } }
.side > div > h4 { margin: 4px 0; font-size: .85rem; color: var(--muted); }
.text-block { background: var(--surface-2); border-radius: 8px; padding: 8px 10px; margin: 6px 0;
  max-height: 360px; overflow: auto; }
.text-block .label { font-size: .75rem; color: var(--muted); text-transform: uppercase; letter-spacing: .05em; }
.sample p { font-size: .9rem; margin: 6px 0; }
.marks td, .marks th { padding: 4px 8px; font-size: .88rem; }
a { color: var(--accent); }
.links { display: flex; flex-wrap: wrap; gap: 10px; font-size: .85rem; margin-top: 6px; }
.verdict { font-size: 1.6rem; font-weight: 700; }
.verdict.pass { color: var(--pass); } .verdict.regression { color: var(--fail); } .verdict.inconclusive { color: var(--error); }
.warn { color: var(--error); font-size: .88rem; margin: 4px 0; }
section.card.headline { border-left-width: 6px; }
.headline .verdict-word { font-size: 2rem; font-weight: 750; letter-spacing: .02em; line-height: 1.2;
  overflow-wrap: anywhere; }
.headline .rule { margin: 6px 0 0; font-size: 1rem; font-variant-numeric: tabular-nums; }
.headline.passed { border-left-color: var(--pass); } .headline.passed .verdict-word { color: var(--pass); }
.headline.failed, .headline.regression { border-left-color: var(--fail); }
.headline.failed .verdict-word, .headline.regression .verdict-word { color: var(--fail); }
.headline.inconclusive, .headline.budget_exhausted, .headline.interrupted { border-left-color: var(--error); }
.headline.inconclusive .verdict-word, .headline.budget_exhausted .verdict-word,
.headline.interrupted .verdict-word { color: var(--error); }
.headline.leaderboard { border-left-color: var(--accent); } .headline.leaderboard .verdict-word { font-size: 1.5rem; }
.stats.counts { margin: 0 0 16px; }
.input { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--surface-2); border-radius: 8px;
  padding: 8px 10px; max-height: 280px; overflow: auto; }
.warnings ul { margin: 0; padding-left: 20px; color: var(--error); font-size: .9rem; }
.run-title { font-size: 1rem; margin: 8px 0; }
figure { margin: 0; }
figcaption { color: var(--muted); font-size: .85rem; max-width: 48rem; }
svg.pareto { max-width: 100%; height: auto; font-size: 12px; }
svg.pareto .axis, svg.pareto .tick { stroke: var(--text); }
svg.pareto .grid { stroke: var(--border); }
svg.pareto .interval { stroke: var(--whisker); stroke-width: 2; }
svg.pareto .mark { fill: var(--surface); stroke: var(--whisker); stroke-width: 2; }
svg.pareto .front-mark { fill: var(--whisker); }
svg.pareto .front { stroke: var(--whisker); stroke-width: 1.5; stroke-dasharray: 5 4; }
svg.pareto text { fill: var(--text); }
table.leaderboard { font-size: .9rem; }
table.leaderboard caption { text-align: left; padding-bottom: 6px; color: var(--muted); }
table.leaderboard tbody th { font-weight: normal; font-family: var(--mono); font-size: .85rem; overflow-wrap: anywhere;
  text-transform: none; letter-spacing: 0; color: var(--text); min-width: 12ch; }
table.leaderboard tr.best th, table.leaderboard tr.best td { font-weight: 650; }
table.leaderboard td { font-variant-numeric: tabular-nums; }
footer { color: var(--muted); font-size: .8rem; text-align: center; margin-top: 24px; }
`;
