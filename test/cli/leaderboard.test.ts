import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PageData } from "../../src/render/html/model.js";
import type { LeaderboardEntry } from "../../src/report/leaderboard.js";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { deterministicYaml, makeProject, runEb, writeFile } from "../helpers/project.js";

const KEY = "sk-test-SECRET";
const CASES = 30;
/** A model name a page must escape: markup, an ampersand and a quote. */
const HOSTILE = `weak<i>&'"`;

/** How many of the cases c00, c01, … each model gets wrong (the first ones). */
const WRONG: Record<string, number> = { strong: 0, tie: 1, [HOSTILE]: 15 };

/** Dollars per million tokens; the mock answers with 11 prompt and 7 completion tokens. */
const PRICING = `
[pricing.strong]
input_per_mtok = 10
output_per_mtok = 30
[pricing.tie]
input_per_mtok = 1
output_per_mtok = 2
[pricing."weak<i>&'\\""]
input_per_mtok = 5
output_per_mtok = 10
`;

function cost(input: number, output: number): number {
  return (CASES * (11 * input + 7 * output)) / 1e6;
}

function caseLines(count: number, prefix = "c"): string {
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: `${prefix}${String(i).padStart(2, "0")}`,
      messages: [{ role: "user", content: `question ${prefix}${String(i).padStart(2, "0")}` }],
      graders: [{ type: "equals", value: "right" }],
    }),
  ).join("\n");
}

/** A --target command: gets the first $FAILS cases wrong. */
const TARGET = `
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { id } = JSON.parse(input);
process.stdout.write(Number(id.slice(1)) < Number(process.env.FAILS ?? 0) ? "wrong" : "right");
`;

/** A rows file of one case run (no manifest, like the article's): the first `wrong` items fail. */
function rowsFile(ids: readonly string[], wrong: number, model = "m"): string {
  const rows = ids.map((id, i) => ({
    id,
    score: i < wrong ? 0 : 1,
    model,
    prompt_tokens: 1000,
    completion_tokens: 100,
    ms: 100 + i,
  }));
  return `${rows.map((row) => JSON.stringify(row)).join("\n")}\n`;
}

function ids(count: number, prefix = "c"): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(2, "0")}`);
}

/** The data a page embeds (its script draws the page from it). */
function pageData(page: string): PageData {
  const json = /<script type="application\/json" id="eb-data">(.*?)<\/script>/s.exec(page)![1]!;
  return JSON.parse(json) as PageData;
}

function entries(stdout: string): LeaderboardEntry[] {
  return JSON.parse(stdout) as LeaderboardEntry[];
}

let server: LoopbackServer;
let root: string;

/** Three real `eb eval` runs of one case file against the loopback model, one per model. */
beforeAll(async () => {
  server = await startLoopbackServer((request) => {
    const model = String((request.json as { model?: string }).model);
    const number = Number(lastContent(request).replace("question c", ""));
    return { body: completion(number < (WRONG[model] ?? 0) ? "wrong" : "right", model) };
  });
  // Not makeProject: its folders go after each test, and these runs serve every test here.
  root = mkdtempSync(path.join(os.tmpdir(), "eb-leaderboard-"));
  writeFile(root, ".eval-banana/config.toml", PRICING);
  writeFile(root, "cases.jsonl", caseLines(CASES));
  writeFile(root, "app.mjs", TARGET);
  for (const [model, folder] of [
    ["strong", "strong"],
    ["tie", "tie"],
    [HOSTILE, "weak"],
  ] as const) {
    const args = ["eval", "cases.jsonl", "-m", model, "--api-base", server.baseURL];
    const run = await runEb([...args, "--output-dir", `runs/${folder}`, "--flat-output"], {
      cwd: root,
      env: { EVAL_BANANA_API_KEY: KEY },
    });
    expect(run.stderr).not.toMatch(/error:|errors [1-9]/);
    expect(existsSync(path.join(root, `runs/${folder}/rows.jsonl`))).toBe(true);
  }
}, 120_000);

afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

function report(args: readonly string[]) {
  return runEb(["report", ...args], { cwd: root });
}

describe("eb report RUN RUN…: the leaderboard", () => {
  it("ranks the runs best first, with cost, latency, errors and the marks against the best", async () => {
    const result = await report(["runs/weak", "runs/strong", "runs/tie"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("leaderboard of 3 runs, best pass rate first");
    expect(lines[1]).toMatch(
      /^#\s+run\s+model\s+items\s+pass rate\s+95% CI\s+cost\s+p50\s+p95\s+errors\s+vs best$/,
    );
    expect(lines[2]).toMatch(
      /^1 .* strong\s+30\s+1\.000\s+\[0\.884, 1\.000\]\s+\$0\.0096\s+\d+ ms\s+\d+ ms\s+0\s+best$/,
    );
    expect(lines[3]).toMatch(
      /^2 .* tie\s+30\s+0\.967\s+\[0\.828, 0\.999\]\s+\$0\.0008 .*≈ best −0\.033 \[−0\.\d{3}, \+0\.\d{3}\]$/,
    );
    expect(lines[4]).toMatch(
      /^3 .* weak<i>&'"\s+30\s+0\.500 .*worse −0\.500 \[−0\.\d{3}, −0\.\d{3}\]$/,
    );
    expect(lines[5]).toContain("97.5% interval each (95% Bonferroni over 2 comparisons)");
    expect(result.stdout).not.toContain("cost unknown");
  });

  it("--json: one entry per run with fixed fields, best first; a clear loser is marked, a near tie is not", async () => {
    const result = await report(["runs/tie", "runs/weak", "runs/strong", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const board = entries(result.stdout);
    expect(board.map((e) => e.model)).toEqual(["strong", "tie", HOSTILE]);
    expect(board.map((e) => e.rank)).toEqual([1, 2, 3]);
    expect(board.map((e) => e.best)).toEqual([true, false, false]);
    expect(board.map((e) => e.indistinguishable_from_best)).toEqual([true, true, false]);
    expect(board.map((e) => e.pass_rate)).toEqual([1, 29 / 30, 0.5]);
    expect(board[0]!.cost).toBeCloseTo(cost(10, 30), 12);
    expect(board[1]!.cost).toBeCloseTo(cost(1, 2), 12);
    expect(board[2]!.cost).toBeCloseTo(cost(5, 10), 12);
    expect(board.map((e) => e.cost_note)).toEqual([null, null, null]);
    // The weak run costs more than the tie and passes less: it is the one off the front.
    expect(board.map((e) => e.pareto_front)).toEqual([true, true, false]);
    expect(board.every((e) => e.pareto_axis === "cost")).toBe(true);
    const [best, tie, weak] = board;
    expect(best).toMatchObject({ delta_vs_best: null, paired_items: null, errors: 0, items: 30 });
    expect(best!.run_id).toMatch(/^\d{8}_\d{6}_[0-9a-f]{8}$/);
    expect(best!.latency_p50_ms).toEqual(expect.any(Number));
    expect(best!.latency_p95_ms! >= best!.latency_p50_ms!).toBe(true);
    expect(tie).toMatchObject({ paired_items: 30, delta_ci_level: 0.975 });
    expect(tie!.delta_vs_best).toBeCloseTo(-1 / 30, 12);
    expect(tie!.delta_ci_low! < 0 && tie!.delta_ci_high! >= 0).toBe(true);
    expect(weak!.delta_vs_best).toBeCloseTo(-0.5, 12);
    expect(weak!.delta_ci_high! < 0).toBe(true);
    expect(weak!.ci_low! < weak!.pass_rate! && weak!.pass_rate! < weak!.ci_high!).toBe(true);
  });

  it("one run: the single-run report, unchanged", async () => {
    const result = await report(["runs/tie"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^items 30 {2}samples 30\npass rate 0\.967 {2}95% CI/);
    expect(result.stdout).not.toContain("leaderboard");
    // With one run, --html writes that run's page, not a leaderboard.
    const html = await report(["runs/tie", "--html", "one.html"]);
    expect(html.code, html.stderr).toBe(0);
    const page = readFileSync(path.join(root, "one.html"), "utf8");
    expect(page).toContain("<title>");
    expect(page).not.toContain("eval-banana leaderboard");
    expect(pageData(page)).toMatchObject({ leaderboard: null, runs: [{ href: "runs/tie/" }] });
  });

  it("--html: the one page, each run's document in rank order with its entry, text escaped", async () => {
    const result = await report([
      "runs/strong",
      "runs/tie",
      "runs/weak",
      "--html",
      "out/board.html",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("leaderboard of 3 runs");
    const page = readFileSync(path.join(root, "out/board.html"), "utf8");
    const data = pageData(page);
    expect(data.title).toBe("eval-banana leaderboard: 3 runs");
    const rows = data.leaderboard!.rows;
    expect(rows.map((row) => row.entry.pareto_front)).toEqual([true, true, false]);
    expect(rows.map((row) => row.mark.split(" ")[0])).toEqual(["best", "≈", "worse"]);
    expect(rows[2]!.cells[2]).toBe(HOSTILE);
    expect(data.rule).toMatch(/^vs best: run − best pass rate, paired by item/);
    // Each run's document, in the board's order, linked from the page's folder.
    expect(data.runs.map((run) => run.doc.run_id)).toEqual(rows.map((row) => row.entry.run_id));
    expect(data.runs.map((run) => run.href)).toEqual([
      "../runs/strong/",
      "../runs/tie/",
      "../runs/weak/",
    ]);
    expect(data.runs[2]!.doc.items).toHaveLength(CASES);
    // Each sample's outcome, for the drill-down, as on a run's own page.
    expect(data.runs[2]!.doc.items[0]!.outcomes.length).toBeGreaterThan(0);
    // The same page as every run's: CSP by hash, the markup escaped, no address outside the script.
    expect(page).not.toContain(HOSTILE);
    expect(page).not.toContain("unsafe-inline");
    expect(page).toContain("default-src 'none'");
    expect(page.match(/<script/g)).toHaveLength(2);
    const markup = page.replace(/(<script[^>]*>).*?<\/script>/gs, "$1");
    expect(markup).not.toMatch(/https?:/);
  });

  it("command targets record no tokens: no cost said, the chart on latency", async () => {
    const runs = [0, 2, 20].map((fails) => `cmd/${fails}`);
    for (const [i, fails] of [0, 2, 20].entries()) {
      const args = ["eval", "cases.jsonl", "--target", "node app.mjs"];
      const run = await runEb([...args, "--output-dir", runs[i]!, "--flat-output"], {
        cwd: root,
        env: { FAILS: String(fails) },
      });
      expect(run.stdout).toContain(`${CASES - fails} items passed, ${fails} failed`);
    }
    const text = await report([...runs, "--html", "cmd.html"]);
    expect(text.code, text.stderr).toBe(0);
    // No cost applies to a command: nothing is said of one, not "unknown".
    expect(text.stdout).not.toContain("cost unknown");
    expect(text.stdout).toMatch(/^1 .* node app\.mjs\s+30\s+1\.000\s+\S+ \S+\s+-\s+\d+ ms/m);
    const json = entries((await report([...runs, "--json"])).stdout);
    expect(json.map((e) => e.pass_rate)).toEqual([1, 28 / 30, 10 / 30]);
    expect(json.map((e) => e.indistinguishable_from_best)).toEqual([true, true, false]);
    expect(json.every((e) => e.cost === null && e.pareto_axis === "latency_p50_ms")).toBe(true);
    const board = pageData(readFileSync(path.join(root, "cmd.html"), "utf8")).leaderboard!;
    expect(board.rows.map((row) => row.entry.pareto_axis)).toEqual(Array(3).fill("latency_p50_ms"));
    expect(board.costUnknown).toBe("");
  }, 120_000);
});

describe("eb report RUN RUN…: the rule and the same suite", () => {
  it("Bonferroni: 5 of 30 worse is told apart from the best alone, not among three runs", async () => {
    const dir = makeProject({
      ".eval-banana/config.toml": "[pricing.m]\ninput_per_mtok = 1\noutput_per_mtok = 4\n",
      "best.jsonl": rowsFile(ids(30), 0),
      "five.jsonl": rowsFile(ids(30), 5),
      "half.jsonl": rowsFile(ids(30), 15),
    });
    const two = entries(
      (await runEb(["report", "best.jsonl", "five.jsonl", "--json"], { cwd: dir })).stdout,
    );
    expect(two[1]).toMatchObject({
      location: "five.jsonl",
      delta_ci_level: 0.95,
      indistinguishable_from_best: false,
    });
    const threeRun = await runEb(["report", "half.jsonl", "five.jsonl", "best.jsonl", "--json"], {
      cwd: dir,
    });
    expect(threeRun.code, threeRun.stderr).toBe(0);
    const three = entries(threeRun.stdout);
    expect(three.map((e) => e.location)).toEqual(["best.jsonl", "five.jsonl", "half.jsonl"]);
    expect(three.map((e) => e.run_id)).toEqual(["best.jsonl", "five.jsonl", "half.jsonl"]);
    expect(three[1]).toMatchObject({ delta_ci_level: 0.975, indistinguishable_from_best: true });
    expect(three[2]).toMatchObject({ indistinguishable_from_best: false });
    // Priced from the rows' tokens: 30 × (1000 × $1 + 100 × $4) / 1e6.
    expect(three[0]!.cost).toBeCloseTo(0.042, 12);
    expect(three.map((e) => e.latency_p50_ms)).toEqual([114, 114, 114]);
  });

  it("item sets that differ in part: a warning, and each run paired over the items it shares", async () => {
    const dir = makeProject({
      "all.jsonl": rowsFile(ids(30), 0),
      "part.jsonl": rowsFile(ids(30).slice(5), 2),
    });
    const result = await runEb(["report", "all.jsonl", "part.jsonl", "--json"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "warning: the runs' item sets differ (30 items in all; part.jsonl lacks 5: c00, c01, c02, c03, c04): each pass rate is over the run's own items, and each run is paired with the best over the items both have",
    );
    const board = entries(result.stdout);
    expect(board.map((e) => [e.location, e.items, e.paired_items])).toEqual([
      ["all.jsonl", 30, null],
      ["part.jsonl", 25, 25],
    ]);
    expect(board[1]!.delta_vs_best).toBeCloseTo(-2 / 25, 12);
  });

  it("reads run id and model from a manifest, and says when a run never finished", async () => {
    const manifest = {
      manifest: {
        kind: "cases",
        run_id: "run-cut",
        target: { kind: "model", model: "gpt-x", api_base: "http://127.0.0.1:9/v1" },
        items_planned: 30,
        k: 1,
      },
    };
    const dir = makeProject({
      "all.jsonl": rowsFile(ids(30), 3),
      "cut.jsonl": `${JSON.stringify(manifest)}\n${rowsFile(ids(20), 0)}`,
    });
    const result = await runEb(["report", "all.jsonl", "cut.jsonl", "--json"], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "warning: run-cut: Interrupted: 10 of 30 items never ran; its figures are over what ran (finish it with --resume)",
    );
    const board = entries(result.stdout);
    expect(board.map((e) => [e.run_id, e.model, e.items])).toEqual([
      ["run-cut", "gpt-x", 20],
      ["all.jsonl", "m", 30],
    ]);
  });

  it("refuses runs that share no item (exit 2), naming both", async () => {
    const dir = makeProject({
      "a.jsonl": rowsFile(ids(10, "a"), 0),
      "b.jsonl": rowsFile(ids(10, "b"), 0),
      "c.jsonl": rowsFile(ids(10, "a"), 1),
    });
    const result = await runEb(["report", "a.jsonl", "c.jsonl", "b.jsonl"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      "error: the runs a.jsonl and b.jsonl share no item, so they are not runs of the same suite: a.jsonl has 10 item(s): a00, a01, a02, a03, a04, … 5 more; b.jsonl has 10 item(s): b00",
    );
  });

  it("refuses runs of different kinds (exit 2): an eb run and an eb eval of the same ids", async () => {
    const checks = Object.fromEntries(
      ids(3).map((id) => [`eval_checks/${id}.yaml`, deterministicYaml(id, "print('ok')")]),
    );
    const dir = makeProject({ ...checks, "cases.jsonl": caseLines(3), "app.mjs": TARGET });
    const checkRun = await runEb(["run", "--output-dir", "checks", "--flat-output"], { cwd: dir });
    expect(checkRun.code, checkRun.stderr).toBe(0);
    const caseArgs = ["eval", "cases.jsonl", "--target", "node app.mjs"];
    const caseRun = await runEb([...caseArgs, "--output-dir", "cases", "--flat-output"], {
      cwd: dir,
    });
    expect(caseRun.code, caseRun.stderr).toBe(0);
    const result = await runEb(["report", "checks", "cases", "--json"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(
      /error: the runs are of different kinds \(\S+ is a checks run; \S+ is a cases run\): a leaderboard ranks runs of the same checks or case file/,
    );
  }, 60_000);
});
