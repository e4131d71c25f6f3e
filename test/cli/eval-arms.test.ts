import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import { makeProject, rightCases, runEb, runFolders, spawnEb } from "../helpers/project.js";

/**
 * A --target program: "right" to every case, but with the argument "bad", "wrong" to the cases
 * whose id starts with "w".
 */
const TARGET = `
import { existsSync } from "node:fs";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { id } = JSON.parse(input);
// While a file named "hold" is there, the "h…" cases never answer.
if (id.startsWith("h") && existsSync("hold")) setInterval(() => {}, 60_000);
else process.stdout.write(process.argv[2] === "bad" && id.startsWith("w") ? "wrong" : "right");
`;

/** 20 cases, 8 of them ("w…") answered wrong by the bad arm. */
const IDS = [
  ...Array.from({ length: 8 }, (_, i) => `w${i}`),
  ...Array.from({ length: 12 }, (_, i) => `c${i}`),
];

function project(): string {
  return makeProject({ "cases.jsonl": rightCases(IDS), "app.mjs": TARGET });
}

function evalIn(root: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return runEb(["eval", "cases.jsonl", ...args], { cwd: root, env });
}

/** Cases for models "good" and "twin", priced at $1000 per million answer tokens. */
function pricedProject(inputPerMtok: string): string {
  const prices = ["good", "twin"].map(
    (model) => `[pricing."${model}"]\ninput_per_mtok = ${inputPerMtok}\noutput_per_mtok = 1000.0\n`,
  );
  return makeProject({
    "cases.jsonl": rightCases(IDS),
    ".eval-banana/config.toml": prices.join("\n"),
  });
}

/** `--target A --target B …`: one arm per command. */
function targets(...commands: string[]): string[] {
  return commands.flatMap((command) => ["--target", command]);
}

/**
 * Runs eb eval with a "hold" file in the project until `ready` says the arms' rows are far
 * enough, interrupts it (exit 130, a hint with --resume once per arm), removes the hold and runs
 * the hint's command.
 */
async function interruptAndResume(
  root: string,
  args: readonly string[],
  ready: (rows: number[]) => boolean,
) {
  writeFileSync(path.join(root, "hold"), "");
  const running = spawnEb(["eval", "cases.jsonl", ...args], { cwd: root });
  // A run folder is made before its rows file: until then it has no rows.
  const rowsOf = (dir: string) => {
    const file = path.join(dir, "rows.jsonl");
    return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").length - 1 : 0;
  };
  while (results(root).length < 2 || !ready(results(root).map(rowsOf))) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  running.child.kill("SIGINT");
  expect(await running.exited).toBe(130);
  const [first, second] = results(root);
  expect(running.stderr()).toContain(`--resume ${first} --resume ${second}`);
  rmSync(path.join(root, "hold"));
  return evalIn(root, [...args, "--resume", first!, "--resume", second!]);
}

function results(root: string): string[] {
  const dir = path.join(root, ".eval-banana/results");
  return existsSync(dir) ? runFolders(dir) : [];
}

/** The case ids of a run folder's rows, one per row. */
function rowIds(runDir: string): string[] {
  const lines = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").trim().split("\n");
  return lines.slice(1).map((line) => JSON.parse(line).id);
}

function reportOf(runDir: string) {
  return JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8"));
}

let server: LoopbackServer;
beforeAll(async () => {
  // Model "bad" answers wrong to the "w…" cases; any other model answers right.
  server = await startLoopbackServer((request) => {
    const model = (request.json as { model?: string }).model;
    if (model === "locked") return { status: 401, body: { error: { message: "bad key" } } };
    const wrong = model === "bad" && lastContent(request).startsWith("question w");
    return { body: completion(wrong ? "wrong" : "right", model) };
  });
});
afterAll(async () => {
  await server.close();
});

describe("eb eval with arms: two targets in one run, the first the baseline", () => {
  it("gates on the paired compare: arm 2 failing some cases is a regression (exit 1)", async () => {
    const root = project();
    const run = await evalIn(root, [
      ...targets("node app.mjs", "node app.mjs bad"),
      "--margin",
      "0.1",
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain("Arm 1 (node app.mjs):");
    expect(run.stdout).toContain(
      "Arm 2 (node app.mjs bad) against the baseline arm 1 (node app.mjs):",
    );
    expect(run.stdout).toContain(
      "Gate of arm 2 (node app.mjs bad): paired compare with the baseline arm 1 (node app.mjs) at margin 0.1 → regression on these 20 cases → failed",
    );
    // Each arm is a run folder; the last arm is the newest, and carries the comparison.
    const [first, second] = results(root);
    expect(reportOf(first!).compare).toBeNull();
    const report = reportOf(second!);
    expect(report.target).toEqual({ kind: "command", command: "node app.mjs bad" });
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
      ...targets("node app.mjs", "node ./app.mjs"),
      "-k",
      "3",
      "--margin",
      "0.2",
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(
      "Gate of arm 2 (node ./app.mjs): paired compare with the baseline arm 1 (node app.mjs) at margin 0.2 → pass on these 20 cases → passed",
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
      [
        "--target",
        "node app.mjs bad",
        "-m",
        "good",
        "--api-base",
        server.baseURL,
        "--margin",
        "0.1",
      ],
      { EVAL_BANANA_API_KEY: "sk-test" },
    );
    // The baseline (the bad command) is worse than the candidate: the candidate passes.
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("Arm 2 (good) against the baseline arm 1 (node app.mjs bad):");
    const report = reportOf(results(root)[1]!);
    expect(report.compare.fixed).toHaveLength(8);
  });

  it("shows a leaderboard of three arms, each paired with the first; the exit code is the worst gate's", async () => {
    const root = project();
    const run = await evalIn(root, [
      ...targets("node app.mjs", "node ./app.mjs", "node app.mjs bad"),
      "-k",
      "3",
      "--margin",
      "0.2",
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain("leaderboard of 3 runs, best pass rate first");
    expect(run.stdout).toMatch(
      /Gate of arm 2 \(node \.\/app\.mjs\): .* → pass on these 20 cases → passed/,
    );
    expect(run.stdout).toMatch(
      /Gate of arm 3 \(node app\.mjs bad\): .* → regression on these 20 cases → failed/,
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
    [["--sequential", "--target", "node app.mjs bad"], "--sequential pairs two arms"],
    [["--sequential", "-k", "3"], "--max-k caps them"],
    [["--resume", "a"], "--resume given 1 times for 2 arm(s)"],
  ])("refuses %j with arms (exit 2)", async (extra, message) => {
    const root = project();
    const run = await evalIn(root, [...targets("node app.mjs", "node ./app.mjs"), ...extra]);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toContain(message);
    expect(results(root)).toEqual([]);
  });

  it("refuses the same target twice unless --no-cache (exit 2)", async () => {
    const root = project();
    const same = [...targets("node app.mjs", "node app.mjs"), "--cache"];
    const run = await evalIn(root, same);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("are the same target");
    const noise = await evalIn(root, [
      ...targets("node app.mjs", "node app.mjs"),
      "--margin",
      "0.5",
    ]);
    expect(noise.code, noise.stderr).toBe(0);
  });

  it("--seed N sends the cases in one seeded order on every arm", async () => {
    const root = project();
    const args = [
      ...targets("node app.mjs", "node ./app.mjs"),
      "--workers",
      "1",
      "--margin",
      "0.5",
    ];
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
    const root = makeProject({ "cases.jsonl": rightCases([...IDS, "h0"]), "app.mjs": TARGET });
    const args = [...targets("node app.mjs", "node app.mjs bad"), "--margin", "0.1"];
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

/**
 * A flaky --target program: a case passes with chance 0.7 ("f…" cases) or 1, less the drop in
 * its second argument, drawn from a hash of its first argument (the arm's salt), the case and
 * the sample: two salts are two arms alike in distribution, each with its own noise.
 */
const FLAKY = `
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { id, sample } = JSON.parse(input);
const [salt, drop] = [process.argv[2], Number(process.argv[3] ?? 0)];
const u = createHash("sha256").update(salt + "/" + id + "/" + sample).digest().readUInt32BE(0) / 2 ** 32;
// While a file named "hold" is there, a case's third sample never answers.
if (sample >= 2 && existsSync("hold")) setInterval(() => {}, 60_000);
else process.stdout.write(u < (id.startsWith("f") ? 0.7 : 1) - drop ? "right" : "wrong");
`;

function flakyProject(): string {
  const ids = [
    ...Array.from({ length: 4 }, (_, i) => `f${i}`),
    ...Array.from({ length: 16 }, (_, i) => `c${i}`),
  ];
  return makeProject({ "cases.jsonl": rightCases(ids), "flaky.mjs": FLAKY });
}

describe("eb eval --sequential: sample until the verdict is known", () => {
  it("stops arms that answer alike before the cap, with a pass", async () => {
    const root = flakyProject();
    const run = await evalIn(root, [
      ...targets("node flaky.mjs a", "node flaky.mjs b"),
      "--sequential",
      "--margin",
      "0.1",
    ]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /sequential: estimate .* \(stopped: the verdict is known\); samples taken per arm \d+ and \d+, where a fixed run at -k 10 takes 200 per arm/,
    );
    const [first, second] = results(root);
    const { sequential, verdict } = reportOf(second!).compare;
    expect(verdict).toBe("pass");
    expect(sequential).toMatchObject({
      reason: "decided",
      max_k: 10,
      fixed_k_samples: 200,
      seed: 0,
    });
    expect(sequential.draws).toBeLessThan(200);
    // Every sample drawn is a row of its arm's run folder; no arm claims to be unfinished.
    const rows = [first!, second!].map(
      (dir) => readFileSync(path.join(dir, "rows.jsonl"), "utf8").trim().split("\n").length - 1,
    );
    expect(sequential.samples).toEqual(rows);
    expect(Math.min(...rows)).toBeGreaterThanOrEqual(sequential.draws);
    expect(run.stdout).not.toContain("Interrupted");
  });

  it("records what a sequential arm planned: eb report, its JSON and its page say it stopped, not that it was interrupted", async () => {
    const root = flakyProject();
    const args = [...targets("node flaky.mjs a", "node flaky.mjs b"), "--sequential"];
    const run = await evalIn(root, [...args, "--margin", "0.1"]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const second = results(root)[1]!;
    const planned = { max_k: 10, stopped: "decided" };
    expect(reportOf(second).run.sequential).toEqual(planned);
    const shown = await runEb(["report", second, "--html", "page.html"], { cwd: root });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain("Interrupted");
    expect(shown.stdout).toMatch(
      /Samples: \d+ \(sequential, at most 10 per case per arm; stopped: the verdict is known\)/,
    );
    const json = await runEb(["report", second, "--json"], { cwd: root });
    const read = JSON.parse(json.stdout);
    expect(read.sequential).toEqual(planned);
    expect(read.samples_planned).toBe(read.samples);
    const page = readFileSync(path.join(root, "page.html"), "utf8");
    expect(page).toContain('"sequential":{"max_k":10,"stopped":"decided"}');
    expect(readFileSync(path.join(second, "report.md"), "utf8")).not.toContain("Interrupted");
  });

  it("finds a regression early", async () => {
    const root = flakyProject();
    const run = await evalIn(root, [
      ...targets("node flaky.mjs a", "node flaky.mjs b 0.5"),
      "--sequential",
      "--margin",
      "0.1",
      "--seed",
      "7",
    ]);
    expect(run.code, run.stderr).toBe(1);
    const { sequential, verdict } = reportOf(results(root)[1]!).compare;
    expect(verdict).toBe("regression");
    expect(sequential).toMatchObject({ reason: "decided", seed: 7 });
    expect(sequential.draws).toBeLessThan(100);
    expect(sequential.ci_high).toBeLessThan(0);
  });

  it("stops at --max-samples undecided: inconclusive for the budget, exit code as --inconclusive says", async () => {
    const root = flakyProject();
    const args = [
      ...targets("node flaky.mjs a", "node flaky.mjs b"),
      "--sequential",
      "--max-samples",
      "20",
    ];
    const failed = await evalIn(root, [...args, "--margin", "0.02"]);
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stdout).toContain(
      "stopped undecided: the budget (--max-samples, --max-cost) ran out",
    );
    expect(failed.stdout).toContain("→ inconclusive on these 20 cases");
    const { sequential, verdict, paired } = reportOf(results(root)[1]!).compare;
    expect(verdict).toBe("inconclusive");
    expect(sequential).toMatchObject({ reason: "budget", draws: 10, cases: 20 });
    // The fixed-k interval's items are those both arms sampled, not the 20 drawn from.
    const sampled = results(root).map((dir) => new Set(rowIds(dir)));
    const both = [...sampled[0]!].filter((id) => sampled[1]!.has(id)).length;
    expect(both).toBeLessThan(20);
    expect(paired).toBe(both);
    expect(failed.stdout).toMatch(new RegExp(`CI \\[[^\\]]*\\] over ${both} items? `));
    const accepted = await evalIn(root, [...args, "--margin", "0.02", "--inconclusive", "pass"]);
    expect(accepted.code, accepted.stderr).toBe(0);
  });

  it("stops at --max-cost undecided: inconclusive for the budget, not a failed candidate", async () => {
    // A loopback call (11 + 7 tokens) costs $0.018 at these prices: $1 buys ~55 in all.
    const root = pricedProject("1000.0");
    const args = ["-m", "good", "-m", "twin", "--api-base", server.baseURL, "--sequential"];
    const key = { EVAL_BANANA_API_KEY: "sk-test" };
    // An answer not seen yet is estimated at 512 tokens: $0.5 refuses the very first sample.
    const none = await evalIn(root, [...args, "--max-cost", "0.5", "--no-cache"], key);
    expect(none.code, none.stderr).toBe(1);
    expect(none.stdout).toContain("INCONCLUSIVE: the budget ran out before the first paired draw");
    const run = await evalIn(root, [...args, "--max-cost", "1", "--max-tokens", "8"], key);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain(
      "stopped undecided: the budget (--max-samples, --max-cost) ran out",
    );
    const [, , first, second] = results(root).map(reportOf);
    expect(second.compare.verdict).toBe("inconclusive");
    expect(second.compare.sequential.reason).toBe("budget");
    expect(second.compare.sequential.draws).toBeLessThan(60);
    expect([first.budget_exceeded, second.budget_exceeded]).toContain(true);
  });

  // Three sequential runs of two arms, each sample a node process: ~30 s on a busy 2-core runner.
  it("resumed after an interrupt, ends as the run that was never interrupted", async () => {
    const args = [
      ...targets("node flaky.mjs a", "node flaky.mjs b"),
      "--sequential",
      "--margin",
      "0.1",
      "--seed",
      "5",
    ];
    const whole = flakyProject();
    expect((await evalIn(whole, args)).code).toBe(0);
    const root = flakyProject();
    // Held at the first third sample of a case, with rows written before it.
    const resumed = await interruptAndResume(root, args, (rows) =>
      rows.every((count) => count >= 10),
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const sequentialOf = (dir: string) => {
      const { draws, estimate, ci_low, ci_high, reason } = reportOf(results(dir)[1]!).compare
        .sequential;
      return { draws, estimate, ci_low, ci_high, reason };
    };
    expect(sequentialOf(root)).toEqual(sequentialOf(whole));
  }, 120_000);

  it("samples the candidate alone against a stored --baseline run it cannot re-run", async () => {
    const root = flakyProject();
    const base = await evalIn(root, ["--target", "node flaky.mjs a", "-k", "5"]);
    expect(base.code).toBe(1);
    // The same cases in another order: another case file than the one the baseline ran.
    const file = path.join(root, "cases.jsonl");
    writeFileSync(file, `${readFileSync(file, "utf8").trim().split("\n").reverse().join("\n")}\n`);
    const run = await evalIn(root, [
      "--target",
      "node flaky.mjs b 0.5",
      "--baseline",
      "latest",
      "--sequential",
      "--margin",
      "0.1",
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain("is not sampled again (it ran another version of the case file)");
    expect(run.stdout).toContain("→ regression on these 20 cases → failed");
    const { sequential } = reportOf(results(root)[1]!).compare;
    expect(sequential.reason).toBe("decided");
    expect(sequential.samples).toHaveLength(1);
  });

  it("samples a --baseline run's target live, as a second arm, when its manifest lets eb re-run it", async () => {
    const root = flakyProject();
    const base = await evalIn(root, ["--target", "node flaky.mjs a", "-k", "5"]);
    expect(base.code).toBe(1);
    const args = ["--target", "node flaky.mjs b 0.5", "--baseline", "latest", "--sequential"];
    const run = await evalIn(root, [...args, "--margin", "0.1"]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      "its manifest lets eb re-run its target (node flaky.mjs a), so it is sampled live as arm 1",
    );
    expect(run.stdout).toContain("→ regression on these 20 cases → failed");
    const [, live, candidate] = results(root);
    const { sequential } = reportOf(candidate!).compare;
    expect(sequential.reason).toBe("decided");
    expect(sequential.samples).toHaveLength(2);
    expect(reportOf(live!).target).toEqual({ kind: "command", command: "node flaky.mjs a" });
    // Each arm's command names both targets, the baseline's first: --resume finishes them.
    const command = reportOf(candidate!).run.command;
    expect(command).toMatch(/--target node flaky\.mjs a .*--target node flaky\.mjs b 0\.5/);
    expect(command).not.toContain("--baseline");
  });

  it.each([
    [
      ["--target", "node flaky.mjs a", "--sequential"],
      "--sequential samples until a paired verdict is known",
    ],
    [
      [...targets("node flaky.mjs a", "node flaky.mjs b"), "--sequential", "--max-k", "0"],
      "--max-k 0: expected a whole number ≥ 1",
    ],
    [
      [...targets("node flaky.mjs a", "node flaky.mjs b"), "--max-samples", "9"],
      "--max-samples sets a --sequential run",
    ],
  ])("refuses %j (exit 2)", async (args, message) => {
    const root = flakyProject();
    const run = await evalIn(root, args);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
