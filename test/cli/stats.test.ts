import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { deterministicYaml, makeProject, runEb } from "../helpers/project.js";

interface RowSpec {
  id: string;
  scores: number[];
  stratum?: string;
}

/** Rows as the article's script writes them: no manifest, no status. */
function rowsFile(dir: string, name: string, items: RowSpec[], manifest?: object): string {
  const lines = manifest ? [JSON.stringify({ manifest })] : [];
  for (const item of items) {
    item.scores.forEach((score, sample) => {
      const row = {
        id: item.id,
        sample,
        score,
        stratum: item.stratum ?? "none",
        marks: { g: score === 1 },
      };
      lines.push(JSON.stringify(row));
    });
  }
  const file = path.join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

function many(count: number, score: (i: number) => number[], prefix = "c"): RowSpec[] {
  return Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, scores: score(i) }));
}

async function reportJson(file: string, extra: string[] = []) {
  const result = await runEb(["report", file, "--json", ...extra]);
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe("eb report", () => {
  it("all pass: rate 1 with an interval that does not collapse to [1, 1]", async () => {
    const dir = makeProject();
    const stats = await reportJson(
      rowsFile(
        dir,
        "r.jsonl",
        many(20, () => [1, 1, 1]),
      ),
    );
    expect(stats).toMatchObject({ items: 20, samples: 60, pass_rate: 1, flaky: 0, errors: 0 });
    expect(stats.ci_high).toBe(1);
    expect(stats.ci_low as number).toBeLessThan(0.9);
    expect(stats.ci_method).toBe("clopper-pearson");
  });

  it("all fail, one flaky item, failures per grader, strata", async () => {
    const dir = makeProject();
    const items = [
      ...many(5, () => [0, 0], "f").map((item) => ({ ...item, stratum: "hard" })),
      { id: "flaky", scores: [1, 0], stratum: "easy" },
    ];
    const result = await runEb(["report", rowsFile(dir, "r.jsonl", items)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("items 6  samples 12");
    expect(result.stdout).toContain("pass rate 0.083");
    expect(result.stdout).toContain(
      "flaky 1 of 6 items scored strictly between 0 and 1: flaky (1/2)",
    );
    expect(result.stdout).toMatch(/grader g +failed 11/);
    expect(result.stdout).toMatch(
      /by stratum \(95% per stratum, unadjusted: [^)]*\):\n {2}easy +0\.500 \[/,
    );
    expect(result.stdout).toMatch(/\n {2}hard +0\.000 \[0\.000, /);
  });

  it("prints the same interval for the same rows, also with the bootstrap", async () => {
    const dir = makeProject();
    const file = rowsFile(
      dir,
      "r.jsonl",
      many(40, (i) => [i % 3 === 0 ? 0 : 1, i % 5 === 0 ? 0 : 1]),
    );
    const first = await runEb(["report", file, "--interval", "bootstrap"]);
    const second = await runEb(["report", file, "--interval", "bootstrap"]);
    expect(first.stdout).toContain("(bootstrap)");
    expect(first.stdout).toBe(second.stdout);
    const other = await runEb(["report", file, "--interval", "bootstrap", "--seed", "7"]);
    expect(other.code).toBe(0);
  });

  it("reads a run folder of eb run, with a breakdown by tag", async () => {
    const project = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "pass", "tags: [fast]\n"),
      "eval_checks/b.yaml": deterministicYaml("b", "raise SystemExit(1)", "tags: [slow]\n"),
    });
    const run = await runEb(["run", "--cwd", project, "--output-dir", "out", "--flat-output"]);
    expect(run.stdout).toMatch(/\n1 item passed, 1 failed, 0 errored in /);
    const stats = await reportJson(path.join(project, "out"));
    expect(stats).toMatchObject({ items: 2, samples: 2, pass_rate: 0.5 });
    expect(stats.breakdown).toMatchObject({ by: "tag" });
  });

  it("rejects a broken row with file and line, and skips a last line cut short", async () => {
    const dir = makeProject();
    const good = JSON.stringify({ id: "a", score: 1 });
    writeFileSync(path.join(dir, "bad.jsonl"), `${good}\n{"id": "b"}\n${good}\n`);
    const bad = await runEb(["report", path.join(dir, "bad.jsonl")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bad.jsonl:2:");
    writeFileSync(path.join(dir, "cut.jsonl"), `${good}\n{"id": "b", "sc`);
    const cut = await runEb(["report", path.join(dir, "cut.jsonl")]);
    expect(cut.code).toBe(0);
    expect(cut.stderr).toContain("cut short");
    const empty = await runEb(["report", path.join(dir, "nothing")]);
    expect(empty.code).toBe(2);
  });

  it("an empty run reports no items and no interval", async () => {
    const dir = makeProject();
    const stats = await reportJson(rowsFile(dir, "r.jsonl", [], { kind: "cases" }));
    expect(stats).toMatchObject({ items: 0, samples: 0, pass_rate: null, ci_low: null });
  });
});

describe("eb compare", () => {
  it("passes an unchanged large suite (exit 0) and prints the paired delta", async () => {
    const dir = makeProject();
    const items = many(1000, (i) => [i % 10 === 0 ? 0 : 1]);
    const base = rowsFile(dir, "base.jsonl", items);
    const cand = rowsFile(dir, "cand.jsonl", items);
    const result = await runEb(["compare", base, cand]);
    expect(result.stdout).toContain("paired delta +0.0000");
    expect(result.stdout).toContain("broke 0 items");
    expect(result.stdout).toContain("PASS");
    expect(result.code).toBe(0);
  });

  it("fails a real regression (exit 1) and lists the broken ids", async () => {
    const dir = makeProject();
    const base = rowsFile(
      dir,
      "base.jsonl",
      many(300, () => [1, 1, 1]),
    );
    const cand = rowsFile(
      dir,
      "cand.jsonl",
      many(300, (i) => (i < 60 ? [0, 0, 0] : [1, 1, 1])),
    );
    const result = await runEb(["compare", base, cand, "--json"]);
    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ verdict: "regression", margin: 0.02, missing: [] });
    expect(json.delta).toBeCloseTo(-0.2);
    expect((json.broke as string[]).length).toBe(60);
    expect(json.fixed).toEqual([]);
  });

  it("a small suite is inconclusive: exit 1 by default, 0 with --inconclusive pass", async () => {
    const dir = makeProject();
    const items = many(10, () => [1]);
    const base = rowsFile(dir, "base.jsonl", items);
    const cand = rowsFile(dir, "cand.jsonl", items);
    const strict = await runEb(["compare", base, cand]);
    expect(strict.stdout).toContain("INCONCLUSIVE");
    expect(strict.stdout).toMatch(
      /smallest regression this run could detect \(80% power\): 0\.\d+/,
    );
    expect(strict.code).toBe(1);
    const lenient = await runEb(["compare", base, cand, "--inconclusive", "pass"]);
    expect(lenient.code).toBe(0);
  });

  it("an inconclusive verdict estimates the items the suite would need", async () => {
    const dir = makeProject();
    const items = many(10, () => [1]);
    const base = rowsFile(dir, "base.jsonl", items);
    const cand = rowsFile(dir, "cand.jsonl", items);
    const population = ["--scope", "population"];
    const text = await runEb(["compare", base, cand, ...population]);
    // One figure everywhere: the text says what --json says. Nothing changed, so Tango's lower
    // bound −a solves (Na − ½)² = z²·Na(1 − a): a is at most t = 0.02·z/(z + z₀.₈) = 0.013992
    // from N = (A + √(A² − 1)) / 2t, A = 1 + z²(1 − t): 338.4 items.
    expect(text.stdout).toMatch(
      /^INCONCLUSIVE: .*on cases like these 10 \(margin 0\.02\)\n {2}to tell a drop of 0\.02 from no change, a suite like this one needs about 339 items \(it has 10; an estimate from this run's item scores\)$/m,
    );
    const json = JSON.parse((await runEb(["compare", base, cand, "--json", ...population])).stdout);
    expect(json).toMatchObject({ verdict: "inconclusive", n: 10, items_needed: 339 });
    // A wider margin needs fewer items: the same formula at t = 0.05·z/(z + z₀.₈), 133.03.
    const wide = JSON.parse(
      (await runEb(["compare", base, cand, "--json", "--margin", "0.05", ...population])).stdout,
    );
    expect(wide.items_needed).toBe(134);
    // A verdict that is not inconclusive prints no estimate.
    const large = many(1000, (i) => [i % 10 === 0 ? 0 : 1]);
    const pass = await runEb([
      "compare",
      rowsFile(dir, "b2.jsonl", large),
      rowsFile(dir, "c2.jsonl", large),
      ...population,
    ]);
    expect(pass.stdout).toContain("PASS");
    expect(pass.stdout).not.toContain("to tell a drop");
  });

  it("on these cases (the default), an inconclusive verdict estimates the samples per case", async () => {
    const dir = makeProject();
    const items = many(10, () => [1, 1, 1]);
    const base = rowsFile(dir, "base.jsonl", items);
    const cand = rowsFile(dir, "cand.jsonl", items);
    const json = JSON.parse((await runEb(["compare", base, cand, "--json"])).stdout);
    expect(json).toMatchObject({ verdict: "inconclusive", scope: "cases", items_needed: null });
    expect(json.samples_needed).toBeGreaterThan(3);
    const text = await runEb(["compare", base, cand]);
    expect(text.stdout).toContain(
      "INCONCLUSIVE: this run cannot tell a regression from noise, on these 10 cases",
    );
    expect(text.stdout).toContain(
      `to tell a drop of 0.02 from no change on these cases, about ${json.samples_needed} samples per case on each side would do`,
    );
    // The MDE says why it moves with --margin; n/a says why there is none.
    expect(text.stdout).toMatch(
      /could detect \(80% power\): (n\/a: no drop|0\.\d+ \(a regression also needs a drop beyond the margin 0\.02)/,
    );
    // Enough samples of the same ten cases decide it.
    const many10 = many(10, () => Array<number>(40).fill(1));
    const decided = await runEb([
      "compare",
      rowsFile(dir, "b3.jsonl", many10),
      rowsFile(dir, "c3.jsonl", many10),
      "--json",
    ]);
    expect(JSON.parse(decided.stdout)).toMatchObject({ verdict: "pass", scope: "cases" });
  });

  it("runs that share no item are an error (exit 2), naming both runs' ids", async () => {
    const dir = makeProject();
    const base = rowsFile(
      dir,
      "base.jsonl",
      many(3, () => [1], "a"),
    );
    const cand = rowsFile(
      dir,
      "cand.jsonl",
      many(3, () => [1], "b"),
    );
    const result = await runEb(["compare", base, cand]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      `the runs share no item, so there is nothing to compare: the baseline ${base} has 3 item(s): a0, a1, a2; the candidate ${cand} has 3 item(s): b0, b1, b2`,
    );
    const empty = rowsFile(dir, "empty.jsonl", [], { kind: "cases" });
    const none = await runEb(["compare", empty, cand]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`the baseline ${empty} has no items`);
  });

  it("rejects a --margin that is not a number between 0 and 1 (exit 2)", async () => {
    const dir = makeProject();
    const file = rowsFile(
      dir,
      "r.jsonl",
      many(3, () => [1]),
    );
    for (const margin of ["abc", "-0.1", "2", ""]) {
      const result = await runEb(["compare", file, file, "--margin", margin]);
      expect(result.code, margin).toBe(2);
      expect(result.stderr).toContain(`--margin ${margin}: expected a number between 0 and 1`);
    }
  });

  it("warns loudly about missing ids and changed definitions", async () => {
    const dir = makeProject();
    const base = rowsFile(
      dir,
      "base.jsonl",
      many(50, () => [1]),
      {
        kind: "checks",
        definitions: { c0: "sha256:aa", c1: "sha256:bb" },
      },
    );
    const cand = rowsFile(
      dir,
      "cand.jsonl",
      many(48, () => [1]),
      {
        kind: "checks",
        definitions: { c0: "sha256:aa", c1: "sha256:cc" },
      },
    );
    const result = await runEb(["compare", base, cand]);
    expect(result.stderr).toContain("2 item(s) missing from the candidate: c48, c49");
    expect(result.stderr).toContain(
      "definitions differ between the runs for 1 item(s) or file(s): c1",
    );
    expect(result.stdout).toContain("over 48 items");
    expect(result.stderr).not.toContain("same run");
  });

  it("warns that a run given as both sides can only show no change", async () => {
    const dir = makeProject();
    const file = rowsFile(
      dir,
      "run.jsonl",
      many(5, () => [1]),
      { kind: "cases", run_id: "r-1" },
    );
    const copy = rowsFile(
      dir,
      "copy.jsonl",
      many(5, () => [1]),
      { kind: "cases", run_id: "r-1" },
    );
    // The same file twice, and a copy of it elsewhere (the same run id).
    for (const cand of [file, copy]) {
      const result = await runEb(["compare", file, cand]);
      expect(result.stderr).toContain(
        "the baseline and the candidate are the same run (r-1): a run compared with itself shows no change",
      );
    }
  });
});

describe("statistics round 2 at the command line", () => {
  it("reports pass@k and pass^k, and takes --level (a bad one is an input error)", async () => {
    const dir = makeProject();
    // 10 items × 4 samples: 5 pass 4/4, 3 pass 2/4, 2 pass 0/4.
    const file = rowsFile(
      dir,
      "r.jsonl",
      many(10, (i) => (i < 5 ? [1, 1, 1, 1] : i < 8 ? [1, 0, 1, 0] : [0, 0, 0, 0])),
    );
    const stats = await reportJson(file);
    // pass@4 = (5 + 3·1 + 0) / 10; pass^4 = (5 + 3·0 + 0) / 10.
    expect(stats.pass_at_k).toMatchObject({ k: 4, estimate: 0.8 });
    expect(stats.pass_hat_k).toMatchObject({ k: 4, estimate: 0.5 });
    const narrow = await reportJson(file, ["--level", "0.8"]);
    expect(narrow.ci_level).toBe(0.8);
    expect((narrow.ci_high as number) - (narrow.ci_low as number)).toBeLessThan(
      (stats.ci_high as number) - (stats.ci_low as number),
    );
    const text = await runEb(["report", file]);
    expect(text.stdout).toMatch(/^pass@4 0\.800 \[0\.\d{3}, 0\.\d{3}\] {2}pass\^4 0\.500 /m);
    const bad = await runEb(["report", file, "--level", "95"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--level 95: expected a number between 0 and 1");
  });

  it("--adjust bonferroni widens the per-stratum intervals and says so; compare gives verdicts", async () => {
    const dir = makeProject();
    const items = (drop: boolean) => [
      ...many(400, () => [1], "a").map((item) => ({ ...item, stratum: "alpha" })),
      ...many(200, (i) => [drop && i < 100 ? 0 : 1], "b").map((item) => ({
        ...item,
        stratum: "beta",
      })),
    ];
    const base = rowsFile(dir, "base.jsonl", items(false));
    const cand = rowsFile(dir, "cand.jsonl", items(true));
    const plain = await reportJson(cand);
    const adjusted = await reportJson(cand, ["--adjust", "bonferroni"]);
    const width = (s: Record<string, unknown>, i: number) => {
      const group = (s.breakdown as { groups: { ci_low: number; ci_high: number }[] }).groups[i]!;
      return group.ci_high - group.ci_low;
    };
    expect(adjusted.breakdown).toMatchObject({ by: "stratum", adjust: "bonferroni", level: 0.975 });
    expect(width(adjusted, 1)).toBeGreaterThan(width(plain, 1));
    const text = await runEb(["report", cand, "--adjust", "bonferroni"]);
    expect(text.stdout).toContain(
      "by stratum (Bonferroni-adjusted: 97.5% each, so all 2 hold together):",
    );
    const compare = await runEb(["compare", base, cand, "--json", "--adjust", "bonferroni"]);
    const strata = (
      JSON.parse(compare.stdout) as { strata: { stratum: string; verdict: string }[] }
    ).strata;
    expect(strata.map((s) => [s.stratum, s.verdict])).toEqual([
      ["alpha", "pass"],
      ["beta", "regression"],
    ]);
    const unadjusted = await runEb(["compare", base, cand, "--json"]);
    expect(
      (JSON.parse(unadjusted.stdout) as { strata: { verdict: null }[] }).strata[0]!.verdict,
    ).toBeNull();
  });

  it("compares runs of different k by item pass rates, exactly, and warns", async () => {
    const dir = makeProject();
    // Every item passes 1 of 3 in the baseline and 2 of 6 in the candidate: no change at all.
    const base = rowsFile(
      dir,
      "base.jsonl",
      many(30, () => [1, 0, 0]),
    );
    const cand = rowsFile(
      dir,
      "cand.jsonl",
      many(30, () => [1, 0, 0, 1, 0, 0]),
    );
    const result = await runEb(["compare", base, cand, "--json"]);
    const json = JSON.parse(result.stdout) as { delta: number; broke: string[] };
    expect(json.delta).toBe(0);
    expect(json.broke).toEqual([]);
    expect(result.stderr).toContain("different samples per item (baseline k=3, candidate k=6)");
  });

  it("warns about fractional scores and leaves pass@k out", async () => {
    const dir = makeProject();
    const file = rowsFile(
      dir,
      "r.jsonl",
      many(5, () => [0.5, 1]),
    );
    const result = await runEb(["report", file, "--json"]);
    expect(result.stderr).toContain("5 item(s) of the run have samples scored between 0 and 1");
    expect((JSON.parse(result.stdout) as { pass_at_k: null }).pass_at_k).toBeNull();
  });
});
