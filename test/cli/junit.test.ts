/**
 * `--junit FILE` of eb run, eb eval and eb compare: the XML is read back by Python's parser (a
 * real XML 1.0 parser: a stray `<`, `&` or control character fails it) and checked against what
 * the JUnit schema that Jenkins, GitLab and GitHub's reporters read requires.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  CLI,
  cleanEnv,
  deterministicYaml,
  makeProject,
  newestRun,
  runEb,
  waitForFileScript,
  writeFile,
} from "../helpers/project.js";

/**
 * Parses the file, checks the schema's structure (testsuites > testsuite(name, tests, failures,
 * errors) > testcase(name, classname) > properties > property(name, value) | failure|error
 * (message) | skipped | system-out | system-err, the counts adding up) and prints what it holds.
 */
const VALIDATOR = `
import json, sys
import xml.etree.ElementTree as ET

def need(condition, what):
    if not condition:
        sys.exit("invalid JUnit: " + what)

root = ET.parse(sys.argv[1]).getroot()
need(root.tag == "testsuites", "the root is " + root.tag)
suites = []
for suite in root:
    need(suite.tag == "testsuite", "a child of testsuites is " + suite.tag)
    for name in ("name", "tests", "failures", "errors"):
        need(name in suite.attrib, "testsuite without " + name)
    cases = []
    for case in suite:
        need(case.tag == "testcase", "a child of testsuite is " + case.tag)
        need("name" in case.attrib and "classname" in case.attrib, "testcase without name or classname")
        if "time" in case.attrib:
            float(case.attrib["time"])
        tags = [child.tag for child in case]
        need(set(tags) <= {"properties", "failure", "error", "skipped", "system-out", "system-err"}, "testcase holds " + str(tags))
        outcomes = [child for child in case if child.tag in ("failure", "error", "skipped")]
        need(len(outcomes) <= 1, "testcase with several outcomes")
        for outcome in outcomes:
            need(outcome.tag == "skipped" or "message" in outcome.attrib, outcome.tag + " without message")
        properties = {}
        for group in case.findall("properties"):
            for prop in group:
                need(prop.tag == "property" and "name" in prop.attrib and "value" in prop.attrib, "bad property")
                properties[prop.attrib["name"]] = prop.attrib["value"]
        cases.append({
            "classname": case.attrib["classname"],
            "name": case.attrib["name"],
            "outcome": outcomes[0].tag if outcomes else "passed",
            "message": outcomes[0].attrib.get("message") if outcomes else None,
            "stdout": case.findtext("system-out"),
            "properties": properties,
        })
    counts = {key: int(suite.attrib[key]) for key in ("tests", "failures", "errors", "skipped")}
    need(counts["tests"] == len(cases), "tests is not the number of testcases")
    for key, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        need(counts[key] == sum(1 for c in cases if c["outcome"] == tag), key + " does not add up")
    suites.append({"name": suite.attrib["name"], "time": suite.attrib.get("time"), **counts, "cases": cases})
print(json.dumps(suites))
`;

interface JunitCase {
  classname: string;
  name: string;
  outcome: "passed" | "failure" | "error" | "skipped";
  message: string | null;
  stdout: string | null;
  properties: Record<string, string>;
}

interface JunitSuite {
  name: string;
  time: string | null;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  cases: JunitCase[];
}

/** The one testsuite of a JUnit file, as the validator read it (it throws on invalid XML). */
function readJunit(file: string): JunitSuite {
  const suites = JSON.parse(
    execFileSync("python3", ["-c", VALIDATOR, file], { encoding: "utf8" }),
  ) as JunitSuite[];
  expect(suites).toHaveLength(1);
  return suites[0]!;
}

function byName(suite: JunitSuite): Record<string, JunitCase> {
  return Object.fromEntries(suite.cases.map((c) => [c.name, c]));
}

function lastRunDir(root: string, results = ".eval-banana/results"): string {
  return newestRun(path.join(root, results));
}

/** The run's wall time as JUnit writes it: seconds, three decimals. */
function wallTime(runDir: string): string {
  return (Number(reportOf(runDir).duration_ms) / 1000).toFixed(3);
}

function reportOf(runDir: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as Record<
    string,
    unknown
  >;
}

/** Waits (up to 15 s) until the newest run's rows.jsonl has `count` lines, the manifest's included. */
async function waitForLines(root: string, count: number): Promise<void> {
  const lines = () => {
    const dir = path.join(root, ".eval-banana/results");
    if (!existsSync(dir) || readdirSync(dir).length === 0) return 0;
    const file = path.join(lastRunDir(root), "rows.jsonl");
    return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").length : 0;
  };
  const deadline = Date.now() + 15_000;
  while (lines() < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
}

const CHECKS: Record<string, string> = {
  "eval_checks/passes.yaml": deterministicYaml("passes", 'print("all <good> & fine")'),
  "eval_checks/api/fails.yaml": deterministicYaml(
    "fails",
    'print("looked at it")\nassert False, "wanted <a> & \\"b\\" \\x01\\x1b[31m"',
  ),
  "eval_checks/api/crashes.yaml": deterministicYaml("crashes", "import sys\nsys.exit(3)"),
};

describe("eb run --junit", () => {
  it("writes a testcase per check: classname its YAML path, a failure with its reason", async () => {
    const root = makeProject(CHECKS);
    const run = await runEb(["run", "--cwd", root, "--junit", "out/deep/junit.xml"], { cwd: root });
    expect(run.code).toBe(1);
    const suite = readJunit(path.join(root, "out/deep/junit.xml"));
    const report = reportOf(lastRunDir(root));
    // The suite by its name, its time the run's wall time (not its checks' times added up).
    expect(suite.name).toBe("eb run");
    expect(suite.time).toBe(wallTime(lastRunDir(root)));
    expect(suite).toMatchObject({
      tests: report.total_checks,
      failures: report.failed_checks,
      errors: 0,
      skipped: 0,
    });
    const cases = byName(suite);
    expect(cases.passes).toMatchObject({
      classname: "eval_checks/passes.yaml",
      outcome: "passed",
      stdout: "all <good> & fine\n",
    });
    expect(cases.fails).toMatchObject({
      classname: "eval_checks/api/fails.yaml",
      outcome: "failure",
    });
    expect(cases.fails?.message).toContain('AssertionError: wanted <a> & "b"');
    expect(cases.fails?.message).toContain("eval_checks/api/fails.yaml:7");
    expect(cases.fails?.stdout).toBe("looked at it\n");
    // A script's non-zero exit is a failed check, not an error.
    expect(cases.crashes?.outcome).toBe("failure");
    expect(readdirSync(path.join(root, "out/deep"))).toEqual(["junit.xml"]);
  });

  it("leaves the exit code and the run alone when every check passes", async () => {
    const root = makeProject({ "eval_checks/passes.yaml": CHECKS["eval_checks/passes.yaml"]! });
    const run = await runEb(["run", "--cwd", root, "--junit", path.join(root, "junit.xml")]);
    expect(run.code).toBe(0);
    expect(readJunit(path.join(root, "junit.xml"))).toMatchObject({ tests: 1, failures: 0 });
  });

  it("refuses a FILE it cannot write, after the run", async () => {
    const root = makeProject({
      "eval_checks/passes.yaml": CHECKS["eval_checks/passes.yaml"]!,
      "taken/junit.xml/file": "",
    });
    const run = await runEb(["run", "--cwd", root, "--junit", "taken/junit.xml"], { cwd: root });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--junit taken/junit.xml: could not write the JUnit XML");
    expect(existsSync(path.join(lastRunDir(root), "report.json"))).toBe(true);
    expect(readdirSync(path.join(root, "taken"))).toEqual(["junit.xml"]);
  });
});

describe("eb run --junit, interrupted", () => {
  it("writes the checks that finished, the rest skipped, and exits 130", async () => {
    const root = makeProject({
      "eval_checks/passes.yaml": CHECKS["eval_checks/passes.yaml"]!,
      "eval_checks/waits.yaml": deterministicYaml("waits", waitForFileScript("never")),
    });
    const args = [CLI, "run", "--junit", "junit.xml", "--max-parallel-checks", "2"];
    const child = spawn(process.execPath, args, { cwd: root, env: cleanEnv() });
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    await waitForLines(root, 2);
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    const suite = readJunit(path.join(root, "junit.xml"));
    expect(reportOf(lastRunDir(root)).total_checks).toBe(1);
    expect(suite).toMatchObject({ tests: 2, skipped: 1, failures: 0, errors: 0 });
    expect(byName(suite).passes?.outcome).toBe("passed");
    // The manifest names every check the run planned; a check that never ran has no YAML path.
    expect(byName(suite).waits).toMatchObject({
      classname: "eval-banana",
      outcome: "skipped",
      message: "not run: the run was interrupted",
    });
  });
});

/** Answers by the case id and sample: `flaky` passes its first sample only; `boom` crashes. */
const TARGET = `
const input = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
if (input.id === "boom") {
  process.stderr.write("fatal: no model\\n");
  process.exit(3);
}
if (input.id === "leaks") process.stdout.write("key " + process.env.EVAL_BANANA_API_KEY + " ");
process.stdout.write(input.id === "flaky" && input.sample > 0 ? "no" : "yes <&\\u0001>");
`;

const HOSTILE = `we<ird>&"'\u0001id`;

const CASES = [
  { id: "good", stratum: "math", graders: [{ type: "contains", all: ["yes"] }] },
  { id: "flaky", stratum: "math", graders: [{ type: "contains", all: ["yes"] }] },
  { id: HOSTILE, stratum: `s<&"'>\u0002`, graders: [{ type: "equals", value: `<&"'\u0003>` }] },
  { id: "boom", graders: [{ type: "contains", all: ["yes"] }] },
  { id: "leaks", graders: [{ type: "contains", all: ["nothing"] }] },
]
  .map((c) => JSON.stringify({ ...c, messages: [{ role: "user", content: `case ${c.id}` }] }))
  .join("\n");

const KEY = "sk-test-JUNITSECRET";

function evalArgs(out: string, extra: readonly string[] = []): string[] {
  return [
    "eval",
    "cases.jsonl",
    "--target",
    "node target.cjs",
    "--target-env",
    "EVAL_BANANA_API_KEY",
    "-k",
    "2",
    "--pass-threshold",
    "0",
    "--out",
    out,
    "--junit",
    `${out}-junit.xml`,
    ...extra,
  ];
}

describe("eb eval --junit", () => {
  it("writes a testcase per case: classname its stratum, errors, failures, flaky, escaped", async () => {
    const root = makeProject({ "cases.jsonl": `${CASES}\n`, "target.cjs": TARGET });
    const run = await runEb(evalArgs("out"), { cwd: root, env: { EVAL_BANANA_API_KEY: KEY } });
    expect(run.code).toBe(1);
    const xml = readFileSync(path.join(root, "out-junit.xml"), "utf8");
    expect(xml).not.toContain(KEY);
    const suite = readJunit(path.join(root, "out-junit.xml"));
    const report = reportOf(lastRunDir(root, "out"));
    const items = report.items as { id: string; errors: number; problem: string | null }[];
    expect(suite).toMatchObject({
      name: "eb eval cases.jsonl",
      time: wallTime(lastRunDir(root, "out")),
    });
    expect(suite.tests).toBe(items.length);
    expect(suite.errors).toBe(items.filter((item) => item.errors > 0).length);
    expect(suite.failures).toBe(items.filter((i) => i.errors === 0 && i.problem !== null).length);

    const cases = byName(suite);
    expect(cases.good).toMatchObject({ classname: "math", outcome: "passed", properties: {} });
    expect(cases.good?.stdout).toBe("yes <&>");
    expect(cases.flaky).toMatchObject({ outcome: "failure", properties: { flaky: "true" } });
    expect(cases.flaky?.message).toMatch(/^sample 1: contains: missing "yes"/);
    // The answer of the sample that fell short.
    expect(cases.flaky?.stdout).toBe("no");
    expect(cases.boom).toMatchObject({ classname: "none", outcome: "error" });
    expect(cases.boom?.message).toContain("exited with code 3");
    expect(cases.leaks?.stdout).toContain("[redacted]");

    // XML 1.0 cannot hold U+0001 at all: it is dropped, the rest of the id is kept as written.
    const hostile = cases[`we<ird>&"'id`];
    expect(hostile).toMatchObject({ classname: `s<&"'>`, outcome: "failure" });
    expect(hostile?.message).toContain("equals: expected");
    const item = items.find((i) => i.id === HOSTILE);
    expect(item?.problem).toContain("equals: expected");
  });
});

/** Answers every case but `slow`, which it holds until the run is stopped (after `change`). */
const SLOW_TARGET = `
const fs = require("node:fs");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
if (input.id === "slow") {
  if (process.env.CHANGE_CASES) fs.appendFileSync("cases.jsonl", "\\n");
  setInterval(() => {}, 1000);
} else process.stdout.write(input.id === "good" ? "yes" : "no");
`;

const SLOW_CASES = ["good", "bad", "slow", "after"]
  .map((id) =>
    JSON.stringify({
      id,
      stratum: `s-${id}`,
      messages: [{ role: "user", content: id }],
      graders: [{ type: "contains", all: ["yes"] }],
    }),
  )
  .join("\n");

/** `eb eval --junit`, one case at a time, stopped by SIGINT once `good` and `bad` have rows. */
async function interruptedEval(
  env: NodeJS.ProcessEnv = {},
): Promise<{ root: string; code: number | null }> {
  const root = makeProject({ "cases.jsonl": `${SLOW_CASES}\n`, "target.cjs": SLOW_TARGET });
  const args = [
    CLI,
    "eval",
    "cases.jsonl",
    "--target",
    "node target.cjs",
    "--workers",
    "1",
    "--junit",
    "junit.xml",
  ];
  const child = spawn(process.execPath, args, { cwd: root, env: { ...cleanEnv(), ...env } });
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  await waitForLines(root, 3);
  const changed = () => readFileSync(path.join(root, "cases.jsonl"), "utf8").endsWith("\n\n");
  const deadline = Date.now() + 15_000;
  while (env.CHANGE_CASES && !changed() && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill("SIGINT");
  return { root, code: await closed };
}

describe("eb eval --junit, interrupted", () => {
  it("lists the cases that never ran as skipped, by id and stratum, from the case file", async () => {
    const { root, code } = await interruptedEval();
    expect(code).toBe(130);
    const suite = readJunit(path.join(root, "junit.xml"));
    expect(suite).toMatchObject({ tests: 4, failures: 1, errors: 0, skipped: 2 });
    const cases = byName(suite);
    expect(cases.good?.outcome).toBe("passed");
    expect(cases.bad?.outcome).toBe("failure");
    for (const id of ["slow", "after"]) {
      expect(cases[id]).toMatchObject({
        classname: `s-${id}`,
        outcome: "skipped",
        message: "not run: the run was interrupted",
      });
    }
  });

  it("names them from the run's own plan when the case file changed during the run", async () => {
    const { root, code } = await interruptedEval({ CHANGE_CASES: "1" });
    expect(code).toBe(130);
    const suite = readJunit(path.join(root, "junit.xml"));
    expect(suite).toMatchObject({ tests: 4, failures: 1, skipped: 2 });
    for (const id of ["slow", "after"]) {
      expect(byName(suite)[id]).toMatchObject({ classname: `s-${id}`, outcome: "skipped" });
    }
  });
});

describe("eb compare --junit", () => {
  it("fails the items that broke and the gate's own testcase when the gate fails", async () => {
    const root = makeProject({ "cases.jsonl": `${CASES}\n`, "target.cjs": TARGET });
    const env = { EVAL_BANANA_API_KEY: KEY };
    expect((await runEb(evalArgs("base"), { cwd: root, env })).code).toBe(1);
    const broken = TARGET.replace(
      'input.id === "flaky" && input.sample > 0',
      'input.id === "good"',
    );
    writeFile(root, "target.cjs", broken);
    expect((await runEb(evalArgs("cand"), { cwd: root, env })).code).toBe(1);
    const base = lastRunDir(root, "base");
    const cand = lastRunDir(root, "cand");

    const compare = await runEb(["compare", base, cand, "--junit", "compare.xml"], { cwd: root });
    expect(compare.code).toBe(1);
    const suite = readJunit(path.join(root, "compare.xml"));
    const cases = byName(suite);
    // Named by the suite, not by the runs' absolute paths; its time the candidate's wall time.
    expect(suite).toMatchObject({ name: "eb eval cases.jsonl", time: wallTime(cand), tests: 6 });
    expect(cases.good).toMatchObject({ classname: "math", outcome: "failure" });
    expect(cases.good?.message).toMatch(/^baseline 1\.00 → candidate 0\.00; sample 0: /);
    // Fixed, or failing in both runs alike: no regression of this item.
    expect(cases.flaky?.outcome).toBe("passed");
    expect(cases.boom?.outcome).toBe("passed");
    expect(cases.gate).toMatchObject({ classname: "eval-banana.compare", outcome: "failure" });
    expect(cases.gate?.message).toMatch(/^(regression|inconclusive): delta /);

    const accepted = await runEb(
      ["compare", base, base, "--junit", "same.xml", "--inconclusive", "pass"],
      { cwd: root },
    );
    expect(accepted.code).toBe(0);
    const same = readJunit(path.join(root, "same.xml"));
    expect(same).toMatchObject({ tests: 6, failures: 0, errors: 0 });
  });
});
