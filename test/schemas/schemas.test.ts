import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse as parseToml } from "smol-toml";
import { beforeAll, describe, expect, it } from "vitest";
import { loadCases } from "../../src/cases/load.js";
import { caseReportSchema } from "../../src/cases/report.js";
import { parseCheck, parseYamlMapping } from "../../src/checks/parse.js";
import { checkReportSchema } from "../../src/checks/report.js";
import { loadConfig } from "../../src/config/load.js";
import { CONFIG_TEMPLATE } from "../../src/config/template.js";
import { rowsLineSchema } from "../../src/report/record.js";
import { jsonSchema } from "../../src/schemas/index.js";
import { SCHEMA_NAMES, type SchemaName, schemaFile, schemaId } from "../../src/schemas/names.js";
import {
  completion,
  type LoopbackServer,
  lastContent,
  startLoopbackServer,
} from "../helpers/loopback-server.js";
import {
  CLI,
  cleanEnv,
  deterministicYaml,
  makeProject,
  runEb,
  waitForFileScript,
  writeFile,
} from "../helpers/project.js";

const REPO = path.resolve(import.meta.dirname, "../..");
const FAKE_AGENT = path.join(REPO, "test/fixtures/agents/fake-agent.mjs");

/** Strict: a keyword ajv does not know, or one that does not fit its type, fails the compile. */
function compile(ajv: Ajv, schema: Record<string, unknown>): ValidateFunction {
  // zod's z.url() takes what the WHATWG URL parser takes.
  ajv.addFormat("uri", (text: string) => URL.canParse(text));
  return ajv.compile(schema);
}

/**
 * Each schema compiled as 2020-12 and, without its `$schema`, as draft-07: the YAML language
 * server (VS Code's YAML extension) validates with draft-07 rules, so the schemas use only
 * keywords that mean the same in both, and every verdict below must be the same in both.
 */
const validators = {} as Record<SchemaName, [ValidateFunction, ValidateFunction]>;
beforeAll(() => {
  for (const name of SCHEMA_NAMES) {
    const { $schema: _, ...draft07 } = jsonSchema(name);
    validators[name] = [
      compile(new Ajv2020({ strict: true, allErrors: true }), jsonSchema(name)),
      compile(new Ajv({ strict: true, allErrors: true }), draft07),
    ];
  }
});

function valid(name: SchemaName, value: unknown): boolean {
  const [latest, draft07] = validators[name];
  const verdict = latest(value) === true;
  expect(draft07(value), `${name}: draft-07 says the same`).toBe(verdict);
  return verdict;
}

function expectValid(name: SchemaName, value: unknown, label: string): void {
  const [latest] = validators[name];
  const ok = valid(name, value);
  expect(ok ? [] : latest.errors, `${label} against ${name}`).toEqual([]);
}

function jsonLines(text: string): unknown[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as unknown);
}

function checkData(file: string, text: string): Record<string, unknown> {
  return parseYamlMapping(file, new TextEncoder().encode(text)).data;
}

/**
 * The repository's files below `dir` whose path relative to it matches: tracked, or new and not
 * ignored. What eb writes (the quick start's .eval-banana/results/, caches) is ignored, so a run
 * of the README's first command is never read as an example.
 */
function filesBelow(dir: string, match: RegExp): string[] {
  const listed = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."],
    { cwd: dir, encoding: "utf8" },
  );
  return listed
    .split("\0")
    .filter((file) => file !== "" && match.test(file) && existsSync(path.join(dir, file)))
    .map((file) => path.join(dir, file));
}

describe("eb schema", () => {
  it("prints what schemas/ ships, one valid JSON Schema 2020-12 per name", async () => {
    for (const name of SCHEMA_NAMES) {
      const result = await runEb(["schema", name]);
      expect(result.code, result.stderr).toBe(0);
      const shipped = readFileSync(path.join(REPO, "schemas", schemaFile(name)), "utf8");
      // A failure here: run `npm run schemas` and commit schemas/.
      expect(result.stdout, `schemas/${schemaFile(name)} is stale`).toBe(shipped);
      const schema = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(schema.$id).toBe(schemaId(name));
      expect(schema.title).toEqual(expect.any(String));
    }
  });

  it("ships schemas/ in the package", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as {
      files: string[];
    };
    expect(pkg.files).toContain("schemas");
  });

  it("refuses an unknown name with exit 2 and the list; --help lists the names", async () => {
    const unknown = await runEb(["schema", "checkz"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toContain("checks, cases, config, report, rows");
    const help = await runEb(["schema", "--help"]);
    for (const name of SCHEMA_NAMES) expect(help.stdout).toContain(name);
  });
});

describe("every example in the repository validates", () => {
  it("check files: examples and every eval_checks/ folder", () => {
    const files = filesBelow(REPO, /(^|\/)eval_checks\/.*\.ya?ml$/);
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files)
      expectValid("checks", checkData(file, readFileSync(file, "utf8")), file);
  });

  it("the tests' check helper", () => {
    const yaml = deterministicYaml("helper", "print(1)", "tags: [a]\n");
    expectValid("checks", checkData("helper.yaml", yaml), "deterministicYaml");
  });

  it("case files: examples and the valid fixtures", () => {
    const files = [
      ...filesBelow(path.join(REPO, "examples"), /\.jsonl$/),
      ...["cases/article.jsonl", "eval/cases.jsonl", "eval/plain.jsonl"].map((file) =>
        path.join(REPO, "test/fixtures", file),
      ),
    ];
    for (const file of files) {
      const lines = jsonLines(readFileSync(file, "utf8"));
      expect(lines.length).toBeGreaterThan(0);
      lines.forEach((line, i) => {
        expectValid("cases", line, `${file}:${i + 1}`);
      });
    }
  });

  it("config files: the examples' and the template", () => {
    for (const file of filesBelow(path.join(REPO, "examples"), /\.eval-banana\/config\.toml$/)) {
      expectValid("config", parseToml(readFileSync(file, "utf8")), file);
    }
    expectValid("config", parseToml(CONFIG_TEMPLATE), "CONFIG_TEMPLATE");
  });
});

describe("eb init points editors at the schemas", () => {
  it("at this version's published copy when the project has no installed package", async () => {
    const root = makeProject();
    const result = await runEb(["init", "--force", "--cwd", root]);
    expect(result.code, result.stderr).toBe(0);
    const check = readFileSync(path.join(root, "eval_checks/example.yaml"), "utf8");
    const config = readFileSync(path.join(root, ".eval-banana/config.toml"), "utf8");
    expect(check.split("\n")[0]).toBe(`# yaml-language-server: $schema=${schemaId("checks")}`);
    expect(config.split("\n")[0]).toBe(`#:schema ${schemaId("config")}`);
    expectValid("checks", checkData("example.yaml", check), "eb init's example check");
    expectValid("config", parseToml(config), "eb init's config");
    // The comment lines change nothing for the loaders: the example runs and passes.
    const run = await runEb(["run"], { cwd: root });
    expect(run.code, run.stderr).toBe(0);
  });

  it("at the installed package's copy, relative to the file, when there is one", async () => {
    const installed = "node_modules/eval-banana/schemas";
    const root = makeProject({
      [`${installed}/checks.schema.json`]: "{}",
      [`${installed}/config.schema.json`]: "{}",
    });
    const result = await runEb(["init", "--force", "--cwd", path.join(root)]);
    expect(result.code, result.stderr).toBe(0);
    const check = readFileSync(path.join(root, "eval_checks/example.yaml"), "utf8");
    const config = readFileSync(path.join(root, ".eval-banana/config.toml"), "utf8");
    expect(check.split("\n")[0]).toBe(
      `# yaml-language-server: $schema=../${installed}/checks.schema.json`,
    );
    expect(config.split("\n")[0]).toBe(`#:schema ../${installed}/config.schema.json`);
  });
});

/** Each check file with what the loader says: the schema must say the same. */
const CHECK_FILES: readonly { label: string; yaml: string; loads: boolean }[] = [
  { label: "inline script", yaml: deterministicYaml("a", "print(1)"), loads: true },
  {
    label: "script_path",
    yaml: "schema_version: 1\nid: a\ntype: deterministic\ndescription: d\nscript_path: a.py\n",
    loads: true,
  },
  {
    label: "a judge with a model",
    yaml: "schema_version: 1\nid: j\ntype: harness_judge\ndescription: d\ninstructions: Read it.\nmodel: m\n",
    loads: true,
  },
  {
    label: "the deprecated target_paths",
    yaml: deterministicYaml("a", "print(1)", "target_paths: [out.txt, ' spaced ']\n"),
    loads: true,
  },
  {
    label: "an id padded with spaces (trimmed)",
    yaml: deterministicYaml("' a '", "print(1)"),
    loads: true,
  },
  {
    label: "an empty script beside a script_path",
    yaml: "schema_version: 1\nid: a\ntype: deterministic\ndescription: d\nscript: ''\nscript_path: a.py\n",
    loads: true,
  },
  {
    label: "an unknown field",
    yaml: deterministicYaml("a", "print(1)", "timeout_seconds: 5\n"),
    loads: false,
  },
  {
    label: "a missing id",
    yaml: "schema_version: 1\ntype: deterministic\ndescription: d\nscript: x\n",
    loads: false,
  },
  { label: "a number for id", yaml: deterministicYaml("12", "print(1)"), loads: false },
  { label: "a space in the id", yaml: deterministicYaml("'a b'", "print(1)"), loads: false },
  {
    label: "a blank description",
    yaml: "schema_version: 1\nid: a\ntype: deterministic\ndescription: '  '\nscript: x\n",
    loads: false,
  },
  {
    label: "schema_version 2",
    yaml: deterministicYaml("a", "print(1)").replace("schema_version: 1", "schema_version: 2"),
    loads: false,
  },
  {
    label: "both script and script_path",
    yaml: deterministicYaml("a", "print(1)", "script_path: a.py\n"),
    loads: false,
  },
  {
    label: "neither script nor script_path",
    yaml: "schema_version: 1\nid: a\ntype: deterministic\ndescription: d\n",
    loads: false,
  },
  {
    label: "the old type llm_judge",
    yaml: "schema_version: 1\nid: j\ntype: llm_judge\ndescription: d\ninstructions: x\n",
    loads: false,
  },
  { label: "tags not a list", yaml: deterministicYaml("a", "x", "tags: a\n"), loads: false },
  {
    label: "a blank target",
    yaml: deterministicYaml("a", "x", "target_paths: [' ']\n"),
    loads: false,
  },
  {
    label: "a judge without instructions",
    yaml: "schema_version: 1\nid: j\ntype: harness_judge\ndescription: d\n",
    loads: false,
  },
  {
    label: "a judge with an empty model",
    yaml: "schema_version: 1\nid: j\ntype: harness_judge\ndescription: d\ninstructions: x\nmodel: ''\n",
    loads: false,
  },
  {
    label: "a judge's field on a script check",
    yaml: deterministicYaml("a", "x", "instructions: Read it.\n"),
    loads: false,
  },
];

describe("the checks schema accepts what the loader accepts, and no more", () => {
  for (const { label, yaml, loads } of CHECK_FILES) {
    it(`${label}: ${loads ? "accepted" : "refused"}`, () => {
      const bytes = new TextEncoder().encode(yaml);
      const loaded = (() => {
        try {
          parseCheck("c.yaml", bytes);
          return true;
        } catch {
          return false;
        }
      })();
      expect(loaded, "the loader").toBe(loads);
      expect(valid("checks", checkData("c.yaml", yaml)), "the schema").toBe(loads);
    });
  }
});

const MESSAGES = [{ role: "user", content: "hi" }];
const CONTAINS = [{ type: "contains", all: ["hi"] }];

/** Each case line with what the loader says. */
const CASE_LINES: readonly { label: string; line: Record<string, unknown>; loads: boolean }[] = [
  {
    label: "a minimal case",
    line: { id: "a", messages: MESSAGES, graders: CONTAINS },
    loads: true,
  },
  {
    label: "a null stratum",
    line: { id: "a", stratum: null, messages: MESSAGES, graders: CONTAINS },
    loads: true,
  },
  {
    label: "every grader",
    line: {
      id: "a",
      stratum: "s",
      messages: [{ role: "system", content: "be brief" }, ...MESSAGES],
      graders: [
        { type: "equals", value: "x" },
        { type: "contains", name: "c", all: ["x"] },
        { type: "absent", any: ["y"] },
        { type: "regex", pattern: "^x" },
        { type: "json", fields: { a: "str", b: null, c: "any" } },
        { type: "json", name: "bare" },
        { type: "judge", criteria: ["polite"] },
      ],
    },
    loads: true,
  },
  {
    label: "an unknown field",
    line: { id: "a", messages: MESSAGES, graders: CONTAINS, note: "x" },
    loads: false,
  },
  { label: "a missing id", line: { messages: MESSAGES, graders: CONTAINS }, loads: false },
  {
    label: "a number for id",
    line: { id: 1, messages: MESSAGES, graders: CONTAINS },
    loads: false,
  },
  {
    label: "a / in the id",
    line: { id: "a/b", messages: MESSAGES, graders: CONTAINS },
    loads: false,
  },
  { label: "the id ..", line: { id: "..", messages: MESSAGES, graders: CONTAINS }, loads: false },
  {
    label: "an empty stratum",
    line: { id: "a", stratum: "", messages: MESSAGES, graders: CONTAINS },
    loads: false,
  },
  { label: "no messages", line: { id: "a", messages: [], graders: CONTAINS }, loads: false },
  {
    label: "an unknown role",
    line: { id: "a", messages: [{ role: "bot", content: "x" }], graders: CONTAINS },
    loads: false,
  },
  { label: "no graders", line: { id: "a", messages: MESSAGES, graders: [] }, loads: false },
  {
    label: "an unknown grader type",
    line: { id: "a", messages: MESSAGES, graders: [{ type: "contians", all: ["x"] }] },
    loads: false,
  },
  {
    label: "an unknown grader field",
    line: { id: "a", messages: MESSAGES, graders: [{ type: "equals", value: "x", all: ["x"] }] },
    loads: false,
  },
  {
    label: "a grader missing its field",
    line: { id: "a", messages: MESSAGES, graders: [{ type: "equals" }] },
    loads: false,
  },
  {
    label: "an empty grader name",
    line: { id: "a", messages: MESSAGES, graders: [{ type: "equals", value: "x", name: "" }] },
    loads: false,
  },
  {
    label: "an unknown json field type",
    line: { id: "a", messages: MESSAGES, graders: [{ type: "json", fields: { a: "text" } }] },
    loads: false,
  },
];

describe("the cases schema accepts what the loader accepts, and no more", () => {
  for (const { label, line, loads } of CASE_LINES) {
    it(`${label}: ${loads ? "accepted" : "refused"}`, async () => {
      const root = makeProject({ "cases.jsonl": `${JSON.stringify(line)}\n` });
      const loaded = await loadCases(path.join(root, "cases.jsonl")).then(
        () => true,
        () => false,
      );
      expect(loaded, "the loader").toBe(loads);
      expect(valid("cases", line), "the schema").toBe(loads);
    });
  }
});

/** Each config file with what the loader says. */
const CONFIGS: readonly { label: string; toml: string; loads: boolean }[] = [
  { label: "an empty file", toml: "", loads: true },
  {
    label: "every table",
    toml: [
      "[core]\npass_threshold = 0.9\nsamples = 3",
      '[discovery]\nexclude_dirs = ["vendor"]',
      '[harness]\nagent = "mine"\nenv_allowlist = ["A"]\n[harness.env]\nB = "1"',
      '[agents.claude]\nshared_flags = ["-x"]',
      '[agents.mine]\ncommand = ["my-cli"]\nprompt_flag = ""\n[agents.mine.provider_env]\nK = "{env:A}"',
      '[eval]\napi_base = "http://127.0.0.1:1/v1"\nworkers = 5',
      '[pricing."gpt-x"]\ninput_per_mtok = 1\noutput_per_mtok = 2',
    ].join("\n"),
    loads: true,
  },
  {
    label: "keys the loader ignores with a warning",
    toml: '[core]\ndeterministic_timeout_seconds = 5\n[harness]\nskills_dir = "x"',
    loads: true,
  },
  { label: "an unknown key", toml: "[core]\npass_treshold = 0.9", loads: false },
  { label: "an unknown table", toml: "[extra]\na = 1", loads: false },
  { label: "the removed [llm] table", toml: '[llm]\nmodel = "x"', loads: false },
  { label: "the removed [harness] skip", toml: "[harness]\nskip = true", loads: false },
  { label: "a value out of range", toml: "[core]\npass_threshold = 2", loads: false },
  { label: "a string for a number", toml: '[core]\nsamples = "3"', loads: false },
  { label: "an api_base that is no URL", toml: '[eval]\napi_base = "local"', loads: false },
  {
    label: "a new agent without a command",
    toml: '[agents.mine]\nprompt_flag = "-p"',
    loads: false,
  },
  { label: "an unknown agent key", toml: "[agents.claude]\nflags = []", loads: false },
];

describe("the config schema accepts what the loader accepts, and no more", () => {
  for (const { label, toml, loads } of CONFIGS) {
    it(`${label}: ${loads ? "accepted" : "refused"}`, async () => {
      const root = makeProject({ ".eval-banana/config.toml": toml });
      const loaded = await loadConfig({ cwd: root, env: {} }).then(
        () => true,
        () => false,
      );
      expect(loaded, "the loader").toBe(loads);
      expect(valid("config", parseToml(toml)), "the schema").toBe(loads);
    });
  }
});

/** report.json and every line of rows.jsonl of a run folder, against the schemas and zod. */
function expectRunFolderValid(runDir: string): void {
  const report = JSON.parse(readFileSync(path.join(runDir, "report.json"), "utf8")) as unknown;
  expectValid("report", report, `${runDir}/report.json`);
  expect(checkReportSchema.or(caseReportSchema).safeParse(report).success).toBe(true);
  const lines = jsonLines(readFileSync(path.join(runDir, "rows.jsonl"), "utf8"));
  expect(lines.length).toBeGreaterThan(1);
  lines.forEach((line, i) => {
    expectValid("rows", line, `${runDir}/rows.jsonl:${i + 1}`);
    expect(rowsLineSchema.safeParse(line).success).toBe(true);
  });
  // Strict: a field eb does not write is refused, at the top and inside.
  const [manifest, row] = lines as [{ manifest: Record<string, unknown> }, Record<string, unknown>];
  expect(valid("report", { ...(report as object), extra: 1 })).toBe(false);
  expect(valid("rows", { ...row, extra: 1 })).toBe(false);
  expect(valid("rows", { manifest: { ...manifest.manifest, extra: 1 } })).toBe(false);
}

function runDirOf(stdout: string): string {
  const report = /^Report: (.+)\/report\.md$/m.exec(stdout);
  expect(report, stdout).not.toBeNull();
  return report![1]!;
}

describe("what real runs write validates", () => {
  it("eb run: passed, failed, errored, judged, several samples, tags, target_paths", async () => {
    const root = makeProject({
      ".eval-banana/config.toml": `[harness]\nagent = "fake"\n[agents.fake]\ncommand = ["${process.execPath}", "${FAKE_AGENT}"]\n`,
      "eval_checks/pass.yaml": deterministicYaml("pass", "print('ok')", "tags: [fast]\n"),
      "eval_checks/fail.yaml": deterministicYaml("fail", "assert False, 'no'"),
      "eval_checks/error.yaml": deterministicYaml("error", "raise SystemExit(3)"),
      "eval_checks/old.yaml": deterministicYaml("old", "pass", "target_paths: [out.txt]\n"),
      "eval_checks/judge.yaml":
        "schema_version: 1\nid: judge\ntype: harness_judge\ndescription: d\ninstructions: Score 1.\n",
    });
    for (const samples of ["1", "2"]) {
      const result = await runEb(["run", "--samples", samples], { cwd: root });
      expect(result.code, result.stderr).toBe(1);
      expectRunFolderValid(runDirOf(result.stdout));
    }
  });

  it("eb run interrupted, then resumed", async () => {
    const root = makeProject({
      "eval_checks/a.yaml": deterministicYaml("a", "pass"),
      "eval_checks/b.yaml": deterministicYaml("b", waitForFileScript("go")),
    });
    const child = spawn(process.execPath, [CLI, "run", "--cwd", root], { env: cleanEnv() });
    const closed = new Promise((resolve) => child.on("close", resolve));
    const results = path.join(root, ".eval-banana/results");
    const rowsOfA = () => {
      const run = existsSync(results) ? readdirSync(results)[0] : undefined;
      const rows = run === undefined ? "" : path.join(results, run, "rows.jsonl");
      return rows !== "" && existsSync(rows) && readFileSync(rows, "utf8").includes('"id":"a"');
    };
    const deadline = Date.now() + 15_000;
    while (!rowsOfA()) {
      if (Date.now() > deadline) throw new Error("check a never finished");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill("SIGINT");
    expect(await closed).toBe(130);
    const runDir = path.join(results, readdirSync(results)[0]!);
    expectRunFolderValid(runDir);
    writeFile(root, "go", "");
    const resumed = await runEb(["run", "--cwd", root, "--resume", runDir]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expectRunFolderValid(runDir);
    expect(readFileSync(path.join(runDir, "rows.jsonl"), "utf8")).toContain('"resumes":1');
  });

  describe("eb eval", () => {
    let server: LoopbackServer;
    beforeAll(async () => {
      server = await startLoopbackServer((request) => {
        const judged = (request.json as { model?: string }).model === "judge-m";
        const text = judged ? '{"score": 0, "reason": "rude"}' : lastContent(request);
        return { body: completion(text, judged ? "judge-2026" : "mock-2026") };
      });
      return () => server.close();
    });

    it("against a model with a judge, k = 3, and against a command", async () => {
      const cases = [
        { id: "echo", stratum: "s", messages: MESSAGES, graders: CONTAINS },
        {
          id: "judged",
          messages: MESSAGES,
          graders: [
            { type: "equals", value: "no" },
            { type: "judge", criteria: ["polite"] },
          ],
        },
      ];
      const root = makeProject({ "cases.jsonl": cases.map((c) => JSON.stringify(c)).join("\n") });
      const judge = ["--judge", "judge-m", "--api-base", server.baseURL];
      const env = { EVAL_BANANA_API_KEY: "sk-test" };
      const model = await runEb(["eval", "cases.jsonl", "-m", "mock", "-k", "3", ...judge], {
        cwd: root,
        env,
      });
      expect(model.code, model.stderr).toBe(1);
      expectRunFolderValid(runDirOf(model.stdout));
      writeFile(root, "echo.mjs", "process.stdout.write('hi there');\n");
      const target = `${process.execPath} echo.mjs`;
      const command = await runEb(["eval", "cases.jsonl", "--target", target, ...judge], {
        cwd: root,
        env,
      });
      expect(command.code, command.stderr).toBe(1);
      expectRunFolderValid(runDirOf(command.stdout));
    });
  });
});
