import {
  cpSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deterministicYaml, makeProject, runEb, writeFile } from "../helpers/project.js";

/**
 * A command target of mixed outcomes, by the case's number: passes, fails, flaky (by sample),
 * and one case whose third sample crashes (an error sample).
 */
const APP = `
IFS= read -r input || true
n=\${input#*'"id":"case-'}
n=\${n%%'"'*}
sample=\${input##*'"sample":'}
sample=\${sample%'}'}
if [ "$n" = 7 ] && [ "$sample" = 2 ]; then exit 3; fi
case $((n % 4)) in
  0|3) printf yes ;;
  1) printf no ;;
  *) if [ $((sample % 2)) = 0 ]; then printf yes; else printf no; fi ;;
esac
`;

const STRATA = ["facts", "tone", "format"];

function caseFile(count: number): string {
  return Array.from({ length: count }, (_, n) =>
    JSON.stringify({
      id: `case-${n}`,
      stratum: STRATA[n % 3],
      messages: [{ role: "user", content: `question ${n}` }],
      graders: [{ type: "equals", value: "yes" }],
    }),
  )
    .map((line) => `${line}\n`)
    .join("");
}

function caseProject(count: number): string {
  return makeProject({ "cases.jsonl": caseFile(count), "app.sh": APP });
}

const EVAL = ["eval", "cases.jsonl", "--target", "sh app.sh", "-k", "3"];

interface Report {
  stats: Record<string, unknown>;
  summary: Record<string, unknown>;
  run_passed: boolean;
  items?: { id: string; score: number; samples: number; errors: number; problem: string | null }[];
  checks?: { check_id: string; score: number; status: string }[];
  items_planned: number;
  items_not_run: number;
}

function readReport(runDir: string): Report {
  return JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as Report;
}

function manifestOf(runDir: string): Record<string, unknown> {
  const first = readFileSync(path.join(runDir, "rows.jsonl"), "utf8").split("\n")[0]!;
  return (JSON.parse(first) as { manifest: Record<string, unknown> }).manifest;
}

/** The only run folder under `root/dir`. */
function runDirIn(root: string, dir: string): string {
  const [only, ...more] = readdirSync(path.join(root, dir));
  expect(more).toEqual([]);
  return path.join(root, dir, only!);
}

/** What must not differ between a run and its shards merged: all but timings. */
function comparable(report: Report) {
  const { latency: _, ...summary } = report.summary;
  return {
    stats: report.stats,
    summary,
    run_passed: report.run_passed,
    items_planned: report.items_planned,
    items_not_run: report.items_not_run,
    items: report.items?.map(({ id, score, samples, errors, problem }) => ({
      id,
      score,
      samples,
      errors,
      problem,
    })),
    checks: report.checks?.map(({ check_id, score, status }) => ({ check_id, score, status })),
  };
}

async function runShards(root: string, args: readonly string[], count: number): Promise<number[]> {
  const codes: number[] = [];
  for (let index = 1; index <= count; index++) {
    const out = path.join("shards", String(index));
    const result = await runEb([...args, "--shard", `${index}/${count}`, "--output-dir", out], {
      cwd: root,
    });
    expect(result.stderr).not.toMatch(/unexpected/);
    codes.push(result.code);
  }
  return codes;
}

const shardDirs = (root: string, count: number) =>
  Array.from({ length: count }, (_, i) => runDirIn(root, path.join("shards", String(i + 1))));

/**
 * Merges the shards into `root/merged` and expects what the unsharded run in `root/whole` has:
 * no warning, the same exit code, the same numbers and items.
 */
async function expectMergedAsWhole(root: string, shards: readonly string[], code: number) {
  const merged = await runEb(["merge", ...shards, "--out", "merged"], { cwd: root });
  expect(merged.stderr).toBe("");
  expect(merged.code).toBe(code);
  const mergedDir = runDirIn(root, "merged");
  const unsharded = readReport(runDirIn(root, "whole"));
  expect(comparable(readReport(mergedDir))).toEqual(comparable(unsharded));
  return { mergedDir, unsharded };
}

describe("eb eval --shard and eb merge", () => {
  it("merges 4 shards of a mixed case file into the unsharded run's numbers, items and exit code", async () => {
    // 12 cases × 3 samples: the heaviest test of the suite (5 runs, 180 target processes).
    const root = caseProject(12);
    const whole = await runEb([...EVAL, "--out", "whole"], { cwd: root });
    expect(whole.code).toBe(1);
    await runShards(root, EVAL, 4);
    const shards = shardDirs(root, 4);
    const sizes = shards.map((dir) => readReport(dir).items_planned);
    expect(sizes.reduce((a, b) => a + b)).toBe(12);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    // A shard is a suite of its own (latest~N of the whole suite never names a quarter of it).
    expect(manifestOf(shards[1]!)).toMatchObject({
      shard: "2/4",
      items_total: 12,
      suite: "eb eval cases.jsonl --shard 2/4",
    });

    const { mergedDir, unsharded } = await expectMergedAsWhole(root, shards, whole.code);
    expect(unsharded.stats).toMatchObject({ items: 12, samples: 36, errors: 1 });
    expect(unsharded.stats.flaky).toBeGreaterThan(0);
    const manifest = manifestOf(mergedDir);
    expect(manifest.shards).toEqual(["1/4", "2/4", "3/4", "4/4"]);
    expect(manifest.merged_runs).toEqual(shards.map((dir) => manifestOf(dir).run_id));
    expect(manifest).not.toHaveProperty("shard");
    expect(manifest.suite).toBe("eb eval cases.jsonl");
    expect(manifest.items_planned).toBe(12);
    expect(readFileSync(path.join(mergedDir, "report.md"), "utf8")).toContain("case-7");
    // The merged run's page embeds the merged statistics, as any run's does.
    const page = readFileSync(path.join(mergedDir, "report.html"), "utf8");
    expect(page).toContain(String(unsharded.stats.pass_rate));
    expect(page).toContain("case-7");
  });

  it("gives the same statistics whatever order the rows are in (bootstrap included)", async () => {
    const root = caseProject(12);
    await runShards(root, EVAL, 2);
    const merged = await runEb(["merge", ...shardDirs(root, 2), "--out", "merged"], { cwd: root });
    expect(merged.code).toBe(1);
    const rowsFile = path.join(runDirIn(root, "merged"), "rows.jsonl");
    const [manifest, ...rows] = readFileSync(rowsFile, "utf8").trimEnd().split("\n");
    const shuffled = writeFile(
      root,
      "shuffled.jsonl",
      [manifest, ...rows.reverse(), ""].join("\n"),
    );
    for (const interval of ["clopper-pearson", "bootstrap"]) {
      const args = ["--json", "--interval", interval];
      const a = await runEb(["report", rowsFile, ...args], { cwd: root });
      const b = await runEb(["report", shuffled, ...args], { cwd: root });
      expect(a.code).toBe(0);
      expect(b.stdout.replaceAll("shuffled.jsonl", "")).toBe(
        a.stdout.replaceAll(rowsFile, "").replaceAll(path.relative(root, rowsFile), ""),
      );
    }
  });
});

/** Checks with real Python: most pass, two fail; the threshold lets the run pass. */
function checkProject(): string {
  const files: Record<string, string> = {
    ".eval-banana/config.toml": "[core]\npass_threshold = 0.8\n",
  };
  for (let n = 0; n < 13; n++) {
    const score = n === 4 || n === 9 ? 0 : 1;
    files[`eval_checks/check_${String(n).padStart(2, "0")}.yaml`] = deterministicYaml(
      `check_${n}`,
      `print("checking ${n}")\nresult = {"score": ${score}, "reason": "check ${n} scored ${score}"}`,
    );
  }
  return makeProject(files);
}

describe("eb run --shard and eb merge", () => {
  it("merges 4 shards of a checks project into the unsharded run's numbers, checks and exit code", async () => {
    const root = checkProject();
    const whole = await runEb(["run", "--output-dir", "whole"], { cwd: root });
    expect(whole.code).toBe(0);
    const listed = await Promise.all(
      [1, 2, 3, 4].map((i) => runEb(["list", "--shard", `${i}/4`], { cwd: root })),
    );
    await runShards(root, ["run"], 4);
    const shards = shardDirs(root, 4);
    for (const [i, dir] of shards.entries()) {
      const ids = readReport(dir).checks!.map((check) => check.check_id);
      expect(
        listed[i]!.stdout.split("\n")
          .filter(Boolean)
          .map((line) => line.split("\t")[0]),
      ).toEqual(ids);
    }
    const { mergedDir, unsharded } = await expectMergedAsWhole(root, shards, whole.code);
    expect(unsharded.checks!.map((c) => c.check_id)).toHaveLength(13);
    expect(readdirSync(path.join(mergedDir, "checks")).sort()).toEqual(
      readdirSync(path.join(runDirIn(root, "whole"), "checks")).sort(),
    );
  });
});

describe("eb merge reads only the shards' own regular files", () => {
  it("leaves a link in a shard's checks/ out, saying so, and refuses a linked rows.jsonl", async () => {
    const root = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "pass"),
      "eval_checks/b.yaml": deterministicYaml("b", "pass"),
      "outside/secret.txt": "TOP-SECRET-CONTENT\n",
    });
    await runShards(root, ["run"], 2);
    const [first, second] = shardDirs(root, 2);
    symlinkSync(
      path.join(root, "outside", "secret.txt"),
      path.join(first!, "checks", "x.stdout.txt"),
    );
    const merged = await runEb(["merge", first!, second!, "--out", "merged"], { cwd: root });
    expect(merged.code).toBe(0);
    expect(merged.stderr).toMatch(/x\.stdout\.txt: not a regular file \(a symlink\), left out/);
    const checks = path.join(runDirIn(root, "merged"), "checks");
    expect(readdirSync(checks)).not.toContain("x.stdout.txt");
    for (const name of readdirSync(checks, { recursive: true, encoding: "utf8" })) {
      const info = lstatSync(path.join(checks, name));
      expect(info.isSymbolicLink()).toBe(false);
      if (info.isFile()) {
        expect(readFileSync(path.join(checks, name), "utf8")).not.toContain("TOP-SECRET");
      }
    }
    const rows = path.join(second!, "rows.jsonl");
    renameSync(rows, `${rows}.real`);
    symlinkSync(`${rows}.real`, rows);
    const refused = await runEb(["merge", first!, second!, "--out", "again"], { cwd: root });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("is a symlink: eb merge reads only regular files");
  });
});

/**
 * Two shards of one 8-case run, made once for the tests that only need some: each works on a
 * copy of its own (the copies' manifests still name this folder as their project root).
 */
let twoShardRun: string;
beforeAll(async () => {
  twoShardRun = mkdtempSync(path.join(os.tmpdir(), "eb-two-shards-"));
  const files = { ".eval-banana/config.toml": "", "cases.jsonl": caseFile(8), "app.sh": APP };
  for (const [file, text] of Object.entries(files)) writeFile(twoShardRun, file, text);
  await runShards(twoShardRun, EVAL, 2);
}, 120_000);
afterAll(() => rmSync(twoShardRun, { recursive: true, force: true }));

/** A fresh copy of the two-shard run's project, and its shards' run folders. */
function twoShards(): { root: string; shards: string[] } {
  const root = makeProject();
  cpSync(twoShardRun, root, { recursive: true });
  return { root, shards: shardDirs(root, 2) };
}

describe("eb merge refuses what is not one run's shards", () => {
  const merge = (root: string, runs: readonly string[], more: string[] = []) =>
    runEb(["merge", ...runs, "--out", "merged", ...more], { cwd: root });

  it("shards of different settings, or of a changed suite", async () => {
    const {
      root,
      shards: [one],
    } = twoShards();
    const k2 = await runEb([...EVAL.slice(0, -1), "2", "--shard", "2/2", "--out", "k2"], {
      cwd: root,
    });
    expect(k2.code).toBe(1);
    const byK = await merge(root, [one!, runDirIn(root, "k2")]);
    expect(byK.code).toBe(2);
    expect(byK.stderr).toMatch(/k differs: shard 1\/2 \(.*\) has 3, shard 2\/2 \(.*\) has 2/);

    writeFile(root, "cases.jsonl", caseFile(9));
    await runEb([...EVAL, "--shard", "2/2", "--out", "changed"], { cwd: root });
    const bySuite = await merge(root, [one!, runDirIn(root, "changed")]);
    expect(bySuite.code).toBe(2);
    expect(bySuite.stderr).toMatch(/item_set differs/);
    expect(bySuite.stderr).toMatch(/cases_sha256 differs/);
  });

  it("shards whose judge agent or commit differ, as their manifests say", async () => {
    const {
      root,
      shards: [one, two],
    } = twoShards();
    const file = path.join(two!, "rows.jsonl");
    const [first, ...rest] = readFileSync(file, "utf8").split("\n");
    const { manifest } = JSON.parse(first!) as { manifest: Record<string, unknown> };
    const changed = { ...manifest, git_commit: "0123abc", harness: { agent: "claude" } };
    writeFileSync(file, [JSON.stringify({ manifest: changed }), ...rest].join("\n"));
    const result = await merge(root, [one!, two!]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/git_commit differs: .* has "0123abc"/);
    expect(result.stderr).toMatch(/harness differs: shard 1\/2 \(.*\) has nothing, shard 2\/2/);
  });

  it("shards of N and M, and runs that are not shards", async () => {
    const {
      root,
      shards: [one],
    } = twoShards();
    await runEb([...EVAL, "--shard", "2/3", "--out", "three"], { cwd: root });
    const counts = await merge(root, [one!, runDirIn(root, "three")]);
    expect(counts.code).toBe(2);
    expect(counts.stderr).toMatch(/shard count differs/);
    await runEb([...EVAL, "--out", "plain"], { cwd: root });
    const plain = await merge(root, [one!, runDirIn(root, "plain")]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/is not a shard: its run had no --shard I\/N/);
  });

  it("the same shard twice, wherever its folder is", async () => {
    const {
      root,
      shards: [one, two],
    } = twoShards();
    const copy = path.join(root, "elsewhere", "copy");
    cpSync(one!, copy, { recursive: true });
    const result = await merge(root, [one!, two!, copy]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/shard 1\/2 given 2 times/);
    expect(result.stderr).toContain("elsewhere");
  });

  it("an item in two shards", async () => {
    const {
      shards: [one, two],
      root,
    } = twoShards();
    const stray = readFileSync(path.join(two!, "rows.jsonl"), "utf8").split("\n")[1]!;
    const id = (JSON.parse(stray) as { id: string }).id;
    writeFileSync(path.join(one!, "rows.jsonl"), `${stray}\n`, { flag: "a" });
    const result = await merge(root, [one!, two!]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`'${id}' in shard 1/2`);
    expect(result.stderr).toContain("and shard 2/2");
  });

  it("missing shards: a warning naming them, or a refusal with --require-all", async () => {
    const root = caseProject(8);
    await runShards(root, EVAL, 3);
    const [one, , three] = shardDirs(root, 3);
    const strict = await merge(root, [one!, three!], ["--require-all"]);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/shard 2\/3 is missing: --require-all refuses/);
    const lenient = await merge(root, [one!, path.join(three!, "rows.jsonl")]);
    expect(lenient.stderr).toMatch(/warning: shard 2\/3 is missing: their items count as not run/);
    const report = readReport(runDirIn(root, "merged"));
    expect(report.items_planned).toBe(8);
    expect(report.items_not_run).toBeGreaterThan(0);
  });
});

describe("eb merge --flat-output", () => {
  it("writes into --out itself, the run id a new one", async () => {
    const { root, shards } = twoShards();
    const result = await runEb(["merge", ...shards, "--out", "flat", "--flat-output", "--json"], {
      cwd: root,
    });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as { run_id: string; output_dir: string };
    expect(report.output_dir).toBe(path.join(root, "flat"));
    expect(report.run_id).toMatch(/^\d{8}_\d{6}_[0-9a-f]{8}$/);
    expect(manifestOf(path.join(root, "flat")).run_id).toBe(report.run_id);
  });
});

describe("eb eval --resume of a shard", () => {
  it("finishes that shard (its I/N from the manifest), and refuses another", async () => {
    const {
      root,
      shards: [one, two],
    } = twoShards();
    const file = path.join(one!, "rows.jsonl");
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    writeFileSync(file, `${lines.slice(0, -2).join("\n")}\n`);
    const other = await runEb([...EVAL, "--resume", one!, "--shard", "2/2"], { cwd: root });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/shard, item_set changed|shard changed/);
    const resumed = await runEb([...EVAL, "--resume", one!], { cwd: root });
    expect(resumed.stderr).not.toMatch(/error/);
    const after = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(
      after
        .slice(1)
        .map((line) => JSON.parse(line).id)
        .sort(),
    ).toEqual(
      lines
        .slice(1)
        .map((line) => JSON.parse(line).id)
        .sort(),
    );
    const merged = await runEb(["merge", one!, two!, "--out", "merged"], { cwd: root });
    expect(merged.stderr).toBe("");
    expect(readReport(runDirIn(root, "merged")).stats).toMatchObject({ items: 8, samples: 24 });
  });
});
