/**
 * `eb calibrate RUN LABELS` and `eb report RUN --labels`: people's labels joined with a run's
 * marks (an article-format rows file, a case run of a real command target, a check run of real
 * Python scripts), against figures worked out by hand.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { GraderCalibration } from "../../src/report/calibrate.js";
import { deterministicYaml, makeProject, runEb, writeFile } from "../helpers/project.js";

interface CalibrationJson {
  graders: GraderCalibration[];
  rate_over: string;
  unmatched_labels: number;
  warnings: string[];
}

/** One person's and one grader's verdict on a sample of item `c<i>`. */
interface Verdicts {
  person: 0 | 1;
  judge: boolean;
}

/**
 * 100 items, labelled all: 45 both pass, 5 only people pass, 40 both fail, 10 only the judge
 * passes. By hand: TPR 45/50 = 0.9, TNR 40/50 = 0.8; judge's rate 55/100 = 0.55; corrected
 * (0.55 + 0.8 − 1) / (0.9 + 0.8 − 1) = 0.5 (what people gave); κ: observed 0.85, chance
 * 0.55·0.5 + 0.45·0.5 = 0.5, so (0.85 − 0.5) / 0.5 = 0.7.
 */
const KNOWN: Verdicts[] = [
  ...Array.from({ length: 45 }, () => ({ person: 1 as const, judge: true })),
  ...Array.from({ length: 5 }, () => ({ person: 1 as const, judge: false })),
  ...Array.from({ length: 40 }, () => ({ person: 0 as const, judge: false })),
  ...Array.from({ length: 10 }, () => ({ person: 0 as const, judge: true })),
];

/** Rows as the article's script writes them: no manifest, no sample, marks by grader name. */
function articleRows(verdicts: readonly Verdicts[]): string {
  return verdicts
    .map(({ judge }, i) =>
      JSON.stringify({ id: `c${i}`, score: judge ? 1 : 0, marks: { judge, format: true } }),
    )
    .join("\n");
}

function labelLines(labels: readonly object[]): string {
  return `${labels.map((label) => JSON.stringify(label)).join("\n")}\n`;
}

function peopleOf(verdicts: readonly Verdicts[], grader = "judge"): string {
  return labelLines(verdicts.map(({ person }, i) => ({ id: `c${i}`, grader, label: person })));
}

async function calibrateJson(args: readonly string[]): Promise<CalibrationJson> {
  const result = await runEb(["calibrate", ...args, "--json"]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as CalibrationJson;
}

function project(verdicts: readonly Verdicts[], labels = peopleOf(verdicts)) {
  const root = makeProject({ "rows.jsonl": articleRows(verdicts), "labels.jsonl": labels });
  return { root, rows: path.join(root, "rows.jsonl"), labels: path.join(root, "labels.jsonl") };
}

describe("eb calibrate: the figures", () => {
  it("gives TPR, TNR, κ and the corrected rate worked out by hand, with their intervals", async () => {
    const { rows, labels } = project(KNOWN);
    const { graders, rate_over } = await calibrateJson([rows, labels]);
    expect(rate_over).toBe("items");
    // Only the labelled grader: "format" is in every row's marks but no label names it.
    expect(graders.map((g) => g.grader)).toEqual(["judge"]);
    const [judge] = graders;
    expect(judge).toMatchObject({ labels: 100, labelled_pass: 50, labelled_fail: 50, units: 100 });
    expect(judge!.problem).toBeNull();
    const expected: Partial<Record<keyof GraderCalibration, number>> = {
      tpr: 0.9,
      tnr: 0.8,
      kappa: 0.7,
      raw_pass_rate: 0.55,
      corrected_pass_rate: 0.5,
      // Wilson for 45/50 and 40/50.
      tpr_ci_low: 0.7864,
      tpr_ci_high: 0.95652,
      tnr_ci_low: 0.66963,
      tnr_ci_high: 0.88756,
      // κ ± 1.96·SE, SE² = 0.0050975 by Fleiss, Cohen and Everitt's formula.
      kappa_ci_low: 0.56073,
      kappa_ci_high: 0.83927,
      // Lang–Reiczigel: adjusted rate (55 + 1.92)/(100 + 3.84), TPR 46/52, TNR 41/52; centre
      // 0.50011, shift −0.00478, SE 0.09010.
      corrected_ci_low: 0.31874,
      corrected_ci_high: 0.67192,
    };
    for (const [field, value] of Object.entries(expected)) {
      expect(judge![field as keyof GraderCalibration], field).toBeCloseTo(value, 4);
    }
  });

  it("prints them as text: TPR, TNR and κ, then the raw rate and the corrected one beside it", async () => {
    // Written by an editor that starts files with a byte-order mark.
    const { rows, labels } = project(KNOWN, `\uFEFF${peopleOf(KNOWN)}`);
    const result = await runEb(["calibrate", rows, labels]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("grader judge: 100 labels (50 passed by people, 50 failed)");
    expect(result.stdout).toContain(
      "TPR 0.900 [0.786, 0.957]  TNR 0.800 [0.670, 0.888]  κ 0.700 [0.561, 0.839]",
    );
    expect(result.stdout).toMatch(
      /pass rate over 100 items: raw 0\.550 \[0\.\d{3}, 0\.\d{3}\] → corrected 0\.500 \[0\.319, 0\.672\]/,
    );
  });

  it("refuses to correct a grader no better than chance (TPR + TNR ≤ 1), and says so", async () => {
    const chance: Verdicts[] = KNOWN.map(({ person }, i) => ({ person, judge: i % 2 === 0 }));
    const { rows, labels } = project(chance);
    const { graders } = await calibrateJson([rows, labels]);
    expect(graders[0]).toMatchObject({ tpr: 0.5, tnr: 0.5, corrected_pass_rate: null });
    expect(graders[0]!.corrected_ci_low).toBeNull();
    expect(graders[0]!.problem).toMatch(/^TPR \+ TNR = 1\.000 ≤ 1: .*no better than chance/);
    const text = await runEb(["calibrate", rows, labels]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("corrected n/a: TPR + TNR = 1.000 ≤ 1");
  });

  it("refuses with too few labels of a verdict, and says what to label", async () => {
    // People failed 2 of the 50 labelled samples.
    const labels = KNOWN.slice(0, 52);
    const { rows, labels: file } = project(KNOWN, peopleOf(labels));
    const { graders } = await calibrateJson([rows, file]);
    expect(graders[0]).toMatchObject({ labels: 52, labelled_fail: 2, corrected_pass_rate: null });
    expect(graders[0]!.tpr).toBeCloseTo(0.9, 10);
    expect(graders[0]!.problem).toMatch(
      /^too few labels to correct the rate: 50 samples people passed and 2 they failed, .* label more samples, picked at random/,
    );
  });
});

describe("eb calibrate: joining labels with the run", () => {
  /** Answers "right" to sample 0 of every case and "wrong" to every other sample. */
  const TARGET = `
let input = "";
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(JSON.parse(input).sample === 0 ? "right" : "wrong");
`;
  const CASES = Array.from({ length: 4 }, (_, i) =>
    JSON.stringify({
      id: `c${i}`,
      messages: [{ role: "user", content: `question ${i}` }],
      graders: [{ type: "equals", name: "judge", value: "right" }],
    }),
  ).join("\n");

  it("a label without sample is of sample 0; with one, of that sample; others are left out with a warning", async () => {
    const root = makeProject({ "cases.jsonl": CASES, "app.mjs": TARGET });
    const run = await runEb(["eval", "cases.jsonl", "--target", "node app.mjs", "-k", "2"], {
      cwd: root,
    });
    expect(run.code).toBe(1);
    const people = (sample?: number) =>
      labelLines(
        Array.from({ length: 4 }, (_, i) => ({ id: `c${i}`, grader: "judge", label: 1, sample })),
      );
    writeFile(root, "first.jsonl", people());
    writeFile(root, "second.jsonl", people(1));
    const first = await calibrateJson(["latest", path.join(root, "first.jsonl"), "--cwd", root]);
    expect(first.graders[0]).toMatchObject({ labels: 4, tpr: 1, units: 4, raw_pass_rate: 0.5 });
    const second = await calibrateJson(["latest", path.join(root, "second.jsonl"), "--cwd", root]);
    expect(second.graders[0]).toMatchObject({ labels: 4, tpr: 0 });

    writeFile(
      root,
      "extra.jsonl",
      `${people(1)}{"id": "c0", "sample": 7, "grader": "judge", "label": 0}\n`,
    );
    const extra = await runEb(["calibrate", "latest", "extra.jsonl", "--cwd", root, "--json"], {
      cwd: root,
    });
    expect(extra.code).toBe(0);
    expect(extra.stderr).toContain(
      'extra.jsonl:5: 1 label name no graded sample of the run (first here: id "c0", sample 7, grader "judge"): left out',
    );
    expect(JSON.parse(extra.stdout)).toMatchObject({
      unmatched_labels: 1,
      graders: [{ labels: 4 }],
    });
  });

  it("in a check run, the grader is the check id and its samples are the units", async () => {
    // Passes on even samples: the sample's number is in the folder its evidence goes to.
    const script =
      "import json, sys\nctx = json.load(open(sys.argv[1]))\nassert int(ctx['output_dir'].rsplit('sample-', 1)[1]) % 2 == 0";
    const root = makeProject({ "eval_checks/even.yaml": deterministicYaml("even", script) });
    const run = await runEb(["run", "--samples", "20", "--cwd", root]);
    expect(run.code).toBe(1);
    // People agree with the check, except on sample 1, which they pass: TP 10, FN 1, TN 9.
    const labels = Array.from({ length: 20 }, (_, sample) => ({
      id: "even",
      sample,
      grader: "even",
      label: sample % 2 === 0 || sample === 1 ? 1 : 0,
    }));
    writeFile(root, "labels.jsonl", labelLines(labels));
    const runDir = path.join(
      root,
      ".eval-banana/results",
      readdirSync(path.join(root, ".eval-banana/results"))[0]!,
    );
    const { graders, rate_over } = await calibrateJson([runDir, path.join(root, "labels.jsonl")]);
    expect(rate_over).toBe("samples");
    expect(graders[0]).toMatchObject({ grader: "even", units: 20, labels: 20, tnr: 1 });
    expect(graders[0]!.tpr).toBeCloseTo(10 / 11, 10);
    expect(graders[0]!.raw_pass_rate).toBe(0.5);
    // (0.5 + 1 − 1) / (10/11 + 1 − 1) = 0.55.
    expect(graders[0]!.corrected_pass_rate).toBeCloseTo(0.55, 10);

    writeFile(root, "wrong.jsonl", labelLines([{ id: "even", grader: "judge", label: 1 }]));
    const wrong = await runEb(["calibrate", runDir, path.join(root, "wrong.jsonl")]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain(
      'wrong.jsonl:1: grader "judge" is not in the run (its graders: even; in a check run, a grader is a check id)',
    );
  });
});

describe("eb calibrate: labels it cannot use", () => {
  it("names the file and line of every bad label, and what a label holds", async () => {
    const bad = [
      '{"id": "c0", "grader": "judge", "label": 1}',
      "not json",
      '{"id": "c1", "grader": "judge", "label": 2}',
      '{"id": "c2", "label": 1}',
      '{"id": "c0", "grader": "judge", "label": 0}',
    ].join("\n");
    const { rows, labels } = project(KNOWN, bad);
    const result = await runEb(["calibrate", rows, labels]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`${labels}:2: not valid JSON — each line is one JSON object`);
    expect(result.stderr).toContain(`${labels}:3: "label":`);
    expect(result.stderr).toContain(`${labels}:4: "grader":`);
    expect(result.stderr).toContain(
      `${labels}:5: a second label of id "c0", sample 0, grader "judge" (the first is on line 1) — keep one`,
    );
  });

  it("refuses labels of which none names a sample of the run", async () => {
    const { rows, labels } = project(
      KNOWN,
      labelLines([{ id: "elsewhere", grader: "judge", label: 1 }]),
    );
    const result = await runEb(["calibrate", rows, labels]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("none of its 1 labels names a graded sample of the run");
  });
});

describe("eb report --labels", () => {
  it("prints each labelled grader's corrected rate beside the raw one, and in --json", async () => {
    const { rows, labels } = project(KNOWN);
    const text = await runEb(["report", rows, "--labels", labels]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("pass rate 0.550");
    expect(text.stdout).toMatch(
      /pass rate over 100 items: raw 0\.550 \[.*\] → corrected 0\.500 \[0\.319, 0\.672\]/,
    );
    const json = await runEb(["report", rows, "--labels", labels, "--json"]);
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { pass_rate: number; calibration: CalibrationJson };
    expect(report.pass_rate).toBe(0.55);
    expect(report.calibration.graders[0]!.grader).toBe("judge");
    expect(report.calibration.graders[0]!.corrected_pass_rate).toBeCloseTo(0.5, 10);
    const two = await runEb(["report", rows, rows, "--labels", labels]);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("--labels calibrates one run");
  });
});
