import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  evalIn,
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

let server: LoopbackServer;
beforeAll(async () => {
  server = await startArmsServer();
});
afterAll(async () => {
  await server.close();
});

/**
 * A flaky --target program: a case passes with chance 0.7 ("f…" cases) or 1, less the drop in
 * its second argument, drawn from a hash of its first argument (the arm's salt, a or b), the
 * case and the sample: two salts are two arms alike in distribution, each with its own noise.
 * Pure sh, no program started: these runs start hundreds of them, and each program a sample
 * started (cat, cksum, awk) cost more CPU than the run that waited for it.
 */
const FLAKY = `IFS= read -r input || :
id=\${input#*'"id":"'}; id=\${id%%'"'*}
sample=\${input##*'"sample":'}; sample=\${sample%%[!0-9]*}
# While a file named "hold" is there, a case's third sample never answers.
if [ "$sample" -ge 2 ] && [ -e hold ]; then exec sleep 600; fi
case $1 in a) salt=1 ;; *) salt=2 ;; esac
case $id in f*) chance=7000 ;; *) chance=10000 ;; esac
case \${2:-0} in 0) drop=0 ;; *) drop=\${2#0.}000; drop=\${drop%"\${drop#????}"} ;; esac
n=\${id#?}
h=$(( (salt * 1000003 + chance * 7919 + n * 104729 + sample * 15485863) & 2147483647 ))
h=$(( ((h ^ (h >> 13)) * 1103515245 + 12345) & 2147483647 ))
h=$(( ((h ^ (h >> 16)) * 1103515245 + 12345) & 2147483647 ))
if [ $(( (h >> 8) % 10000 )) -lt $(( chance - drop )) ]; then printf right; else printf wrong; fi
`;

function flakyProject(): string {
  const ids = [
    ...Array.from({ length: 4 }, (_, i) => `f${i}`),
    ...Array.from({ length: 16 }, (_, i) => `c${i}`),
  ];
  return makeProject({ "cases.jsonl": rightCases(ids), "flaky.sh": FLAKY });
}

describe("eb eval --sequential: sample until the verdict is known", () => {
  it("stops arms that answer alike before the cap, with a pass", async () => {
    const root = flakyProject();
    const run = await evalIn(root, [
      ...targets("sh flaky.sh a", "sh flaky.sh b"),
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
    const args = [...targets("sh flaky.sh a", "sh flaky.sh b"), "--sequential"];
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
      ...targets("sh flaky.sh a", "sh flaky.sh b 0.5"),
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
      ...targets("sh flaky.sh a", "sh flaky.sh b"),
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
      ...targets("sh flaky.sh a", "sh flaky.sh b"),
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
    const base = await evalIn(root, ["--target", "sh flaky.sh a", "-k", "5"]);
    expect(base.code).toBe(1);
    // The same cases in another order: another case file than the one the baseline ran.
    const file = path.join(root, "cases.jsonl");
    writeFileSync(file, `${readFileSync(file, "utf8").trim().split("\n").reverse().join("\n")}\n`);
    const run = await evalIn(root, [
      "--target",
      "sh flaky.sh b 0.5",
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
    const base = await evalIn(root, ["--target", "sh flaky.sh a", "-k", "5"]);
    expect(base.code).toBe(1);
    const args = ["--target", "sh flaky.sh b 0.5", "--baseline", "latest", "--sequential"];
    const run = await evalIn(root, [...args, "--margin", "0.1"]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      "its manifest lets eb re-run its target (sh flaky.sh a), so it is sampled live as arm 1",
    );
    expect(run.stdout).toContain("→ regression on these 20 cases → failed");
    const [, live, candidate] = results(root);
    const { sequential } = reportOf(candidate!).compare;
    expect(sequential.reason).toBe("decided");
    expect(sequential.samples).toHaveLength(2);
    expect(reportOf(live!).target).toEqual({ kind: "command", command: "sh flaky.sh a" });
    // Each arm's command names both targets, the baseline's first: --resume finishes them.
    const command = reportOf(candidate!).run.command;
    expect(command).toMatch(/--target sh flaky\.sh a .*--target sh flaky\.sh b 0\.5/);
    expect(command).not.toContain("--baseline");
  });

  it.each([
    [
      ["--target", "sh flaky.sh a", "--sequential"],
      "--sequential samples until a paired verdict is known",
    ],
    [
      [...targets("sh flaky.sh a", "sh flaky.sh b"), "--sequential", "--max-k", "0"],
      "--max-k 0: expected a whole number ≥ 1",
    ],
    [
      [...targets("sh flaky.sh a", "sh flaky.sh b"), "--max-samples", "9"],
      "--max-samples sets a --sequential run",
    ],
  ])("refuses %j (exit 2)", async (args, message) => {
    const root = flakyProject();
    const run = await evalIn(root, args);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toContain(message);
  });
});
