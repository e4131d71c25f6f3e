import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  evalIn,
  IDS,
  interruptAndResume,
  pricedProject,
  reportOf,
  results,
  rowIds,
  startArmsServer,
  targets,
} from "../helpers/arms.js";
import type { LoopbackServer } from "../helpers/loopback-server.js";
import { makeProject, rightCases, runEb } from "../helpers/project.js";

/**
 * A --target program: "right" to every case, but with the argument "bad", "wrong" to the cases
 * whose id starts with "w". A shell script that starts no program: node's start (or even
 * cat's) would be most of these tests' time.
 */
const TARGET = `IFS= read -r input || :
id=\${input#*'"id":"'}; id=\${id%%'"'*}
# While a file named "hold" is there, the "h…" cases never answer.
case "$id" in h*) [ -e hold ] && exec sleep 600;; esac
case "$1/$id" in bad/w*) printf wrong;; *) printf right;; esac
`;

function project(): string {
  return makeProject({ "cases.jsonl": rightCases(IDS), "app.sh": TARGET });
}

let server: LoopbackServer;
beforeAll(async () => {
  server = await startArmsServer();
});
afterAll(async () => {
  await server.close();
});

describe("eb eval with arms: two targets in one run, the first the baseline", () => {
  it("gates on the paired compare: arm 2 failing some cases is a regression (exit 1)", async () => {
    const root = project();
    const run = await evalIn(root, [...targets("sh app.sh", "sh app.sh bad"), "--margin", "0.1"]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain("Arm 1 (sh app.sh):");
    expect(run.stdout).toContain("Arm 2 (sh app.sh bad) against the baseline arm 1 (sh app.sh):");
    expect(run.stdout).toContain(
      "Gate of arm 2 (sh app.sh bad): paired compare with the baseline arm 1 (sh app.sh) at margin 0.1 → regression on these 20 cases → failed",
    );
    // Each arm is a run folder; the last arm is the newest, and carries the comparison.
    const [first, second] = results(root);
    expect(reportOf(first!).compare).toBeNull();
    const report = reportOf(second!);
    expect(report.target).toEqual({ kind: "command", command: "sh app.sh bad" });
    expect(report.compare).toMatchObject({ verdict: "regression", paired: 20, margin: 0.1 });
    expect(report.compare.broke).toHaveLength(8);
    expect(report.verdict.outcome).toBe("regression");
    expect(readFileSync(path.join(second!, "report.md"), "utf8")).toContain("→ regression");
    // eb compare latest~1 latest and eb report latest see the same runs.
    const compare = await runEb(["compare", "latest~1", "latest", "--margin", "0.1"], {
      cwd: root,
    });
    expect(compare.code).toBe(1);
    expect(compare.stdout).toContain("REGRESSION");
    const latest = await runEb(["report", "latest", "--json"], { cwd: root });
    expect(JSON.parse(latest.stdout).pass_rate).toBeCloseTo(0.6);
  });

  it("passes arms that answer alike (exit 0)", async () => {
    const root = project();
    const run = await evalIn(root, [
      ...targets("sh app.sh", "sh ./app.sh"),
      "-k",
      "3",
      "--margin",
      "0.2",
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(
      "Gate of arm 2 (sh ./app.sh): paired compare with the baseline arm 1 (sh app.sh) at margin 0.2 → pass on these 20 cases → passed",
    );
    expect(reportOf(results(root)[1]!).compare.verdict).toBe("pass");
  });

  it("names models: -m A -m B against an endpoint, B failing some cases (exit 1)", async () => {
    const root = project();
    const run = await evalIn(
      root,
      ["-m", "good", "-m", "bad", "--api-base", server.baseURL, "--margin", "0.1"],
      { EVAL_BANANA_API_KEY: "sk-test" },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain(
      "Gate of arm 2 (bad): paired compare with the baseline arm 1 (good) at margin 0.1 → regression on these 20 cases → failed",
    );
    const models = results(root).map((dir) => reportOf(dir).target.model);
    expect(models).toEqual(["good", "bad"]);
  });

  it("an arm the endpoint refuses stops every arm; the message resumes them all (exit 2)", async () => {
    const root = project();
    const run = await evalIn(root, ["-m", "good", "-m", "locked", "--api-base", server.baseURL], {
      EVAL_BANANA_API_KEY: "sk-test",
    });
    expect(run.code, run.stdout).toBe(2);
    const [first, second] = results(root);
    expect(run.stderr).toContain(
      `The arms are finished together: --resume ${first} --resume ${second}.`,
    );
  });

  it("takes a --target and a -m in the order given", async () => {
    const root = project();
    const run = await evalIn(
      root,
      ["--target", "sh app.sh bad", "-m", "good", "--api-base", server.baseURL, "--margin", "0.1"],
      { EVAL_BANANA_API_KEY: "sk-test" },
    );
    // The baseline (the bad command) is worse than the candidate: the candidate passes.
    expect(run.code, run.stderr).toBe(0);
    // Nothing but progress, which a slow machine prints after 5 s.
    expect(run.stderr.replace(/^eval \d+\/\d+ cases · .*\n/gm, "")).toBe("");
    expect(run.stdout).toContain("Arm 2 (good) against the baseline arm 1 (sh app.sh bad):");
    const report = reportOf(results(root)[1]!);
    expect(report.compare.fixed).toHaveLength(8);
  });

  it("shows a leaderboard of three arms, each paired with the first; the exit code is the worst gate's", async () => {
    const root = project();
    const run = await evalIn(root, [
      ...targets("sh app.sh", "sh ./app.sh", "sh app.sh bad"),
      "-k",
      "3",
      "--margin",
      "0.2",
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain("leaderboard of 3 runs, best pass rate first");
    expect(run.stdout).toMatch(
      /Gate of arm 2 \(sh \.\/app\.sh\): .* → pass on these 20 cases → passed/,
    );
    expect(run.stdout).toMatch(
      /Gate of arm 3 \(sh app\.sh bad\): .* → regression on these 20 cases → failed/,
    );
    const verdicts = results(root).map((dir) => reportOf(dir).compare?.verdict ?? null);
    expect(verdicts).toEqual([null, "pass", "regression"]);
    // The last arm's reports carry the leaderboard the terminal printed.
    const last = results(root)[2]!;
    const { leaderboard } = reportOf(last);
    expect(leaderboard.comparisons).toBe(2);
    expect(leaderboard.entries.map((e: { run_id: string }) => e.run_id)).toHaveLength(3);
    expect(leaderboard.entries.at(-1)).toMatchObject({ best: false });
    expect(
      results(root)
        .slice(0, 2)
        .map((dir) => reportOf(dir).leaderboard),
    ).toEqual([null, null]);
    const markdown = readFileSync(path.join(last, "report.md"), "utf8");
    expect(markdown).toContain("## Leaderboard of 3 runs, best pass rate first");
    expect(markdown).toContain(
      `| ${leaderboard.entries[0].rank} | \`${leaderboard.entries[0].run_id}\``,
    );
    const page = readFileSync(path.join(last, "report.html"), "utf8");
    expect(page).toContain('"board":{"rows":[');
  });

  it("--max-cost is one budget for all arms together", async () => {
    // Answers (7 tokens) at $1000 per million, the prompt free: a call costs $0.007, estimated
    // at --max-tokens 8 ($0.008, never less than it costs): $0.14 buys at most 20 calls in all.
    const root = pricedProject("0.0");
    const args = ["-m", "good", "-m", "twin", "--api-base", server.baseURL, "-k", "2"];
    const run = await evalIn(root, [...args, "--max-cost", "0.14", "--max-tokens", "8"], {
      EVAL_BANANA_API_KEY: "sk-test",
    });
    expect(run.code, run.stderr).toBe(1);
    const rows = results(root).map((dir) => rowIds(dir).length);
    expect(rows[0]! + rows[1]!).toBeGreaterThanOrEqual(17);
    expect(rows[0]! + rows[1]!).toBeLessThanOrEqual(20);
    // Each arm its share: the first to start does not spend the cap alone.
    expect(Math.min(...rows)).toBeGreaterThanOrEqual(8);
    for (const dir of results(root)) {
      const { budget, budget_exceeded } = reportOf(dir);
      expect(budget.max_cost).toBe(0.14);
      expect(budget.spent).toBeLessThanOrEqual(0.14 + 1e-9);
      expect(budget_exceeded).toBe(true);
    }
  });

  it.each([
    [["--baseline", "latest"], "drop --baseline"],
    [["--pass-threshold", "0.5"], "drop --pass-threshold"],
    [["--flat-output"], "drop --flat-output"],
    [["--junit", "x.xml"], "eb compare latest~1 latest --junit FILE"],
    [["--max-k", "5"], "--max-k sets a --sequential run"],
    [["--sequential", "--target", "sh app.sh bad"], "--sequential pairs two arms"],
    [["--sequential", "-k", "3"], "--max-k caps them"],
    [["--resume", "a"], "--resume given 1 times for 2 arm(s)"],
  ])("refuses %j with arms (exit 2)", async (extra, message) => {
    const root = project();
    const run = await evalIn(root, [...targets("sh app.sh", "sh ./app.sh"), ...extra]);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toContain(message);
    expect(results(root)).toEqual([]);
  });

  it("refuses the same target twice unless --no-cache (exit 2)", async () => {
    const root = project();
    const same = [...targets("sh app.sh", "sh app.sh"), "--cache"];
    const run = await evalIn(root, same);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("are the same target");
    const noise = await evalIn(root, [...targets("sh app.sh", "sh app.sh"), "--margin", "0.5"]);
    expect(noise.code, noise.stderr).toBe(0);
  });

  it("--seed N sends the cases in one seeded order on every arm", async () => {
    const root = project();
    const args = [...targets("sh app.sh", "sh ./app.sh"), "--workers", "1", "--margin", "0.5"];
    const order = (dir: string) =>
      readFileSync(path.join(dir, "rows.jsonl"), "utf8")
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => JSON.parse(line).id);
    expect((await evalIn(root, [...args, "--seed", "4"])).code).toBe(0);
    expect((await evalIn(root, [...args, "--seed", "4"])).code).toBe(0);
    const orders = results(root).map(order);
    expect(new Set(orders.map((ids) => ids.join()))).toEqual(new Set([orders[0]!.join()]));
    expect(orders[0]).not.toEqual(IDS);
    expect([...orders[0]!].sort()).toEqual([...IDS].sort());
  });

  it("stops every arm on an interrupt (exit 130) and finishes them with --resume once per arm", async () => {
    const root = makeProject({ "cases.jsonl": rightCases([...IDS, "h0"]), "app.sh": TARGET });
    const args = [...targets("sh app.sh", "sh app.sh bad"), "--margin", "0.1"];
    // Every case but the held one answered on both arms.
    const resumed = await interruptAndResume(root, [...args, "--workers", "4"], (rows) =>
      rows.every((count) => count === IDS.length),
    );
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(resumed.stdout).toContain("→ regression on these 21 cases → failed");
    expect(results(root)).toHaveLength(2);
    expect(reportOf(results(root)[1]!).compare.verdict).toBe("regression");
  });
});
