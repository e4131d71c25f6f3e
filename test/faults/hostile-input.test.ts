import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { completion, lastContent } from "../helpers/loopback-server.js";
import { deterministicYaml, makeProject, runEb } from "../helpers/project.js";
import { type FaultServer, reply, startFaultServer } from "./fault-server.js";
import {
  caseLine,
  casesProject,
  evalAt,
  expectAllRows,
  filesUnder,
  type Grader,
  KEY,
  OUT,
  readRun,
} from "./support.js";

let server: FaultServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function echoServer(): Promise<FaultServer> {
  return startFaultServer((request) => reply(completion(`echo: ${lastContent(request)}`)));
}

/**
 * A project inside a folder of its own, so that a file written beside the project (an id such
 * as "../x" escaping the output folder) would be seen too.
 */
function nestedProject(lines: readonly string[]): { root: string; outer: string } {
  const outer = makeProject({});
  const root = path.join(outer, "project");
  mkdirSync(path.join(root, ".eval-banana"), { recursive: true });
  writeFileSync(path.join(root, ".eval-banana/config.toml"), "");
  writeFileSync(path.join(root, "cases.jsonl"), `${lines.join("\n")}\n`);
  return { root, outer };
}

describe("hostile or broken case files stop the run before any call (exit 2)", () => {
  it("rejects ids that would escape the output folder, writing nothing anywhere", async () => {
    server = await echoServer();
    const ids = ["../escape", "..", ".", "a/b", "a\\b", "a\u0000b", "/etc/passwd", "..\\up"];
    const lines = [caseLine("fine", "hi"), ...ids.map((id) => caseLine(id, "hi"))];
    const { root, outer } = nestedProject(lines);
    const before = filesUnder(outer);
    const result = await evalAt(root, server.baseURL);
    expect(result.code).toBe(2);
    expect(server.requests).toEqual([]);
    ids.forEach((_, i) => {
      expect(result.stderr).toMatch(new RegExp(`cases\\.jsonl:${i + 2}: id .* — rename the case`));
    });
    expect(result.stderr).not.toMatch(/cases\.jsonl:1:/);
    expect(filesUnder(outer)).toEqual(before);
  });

  it("rejects check ids that are not plain names in eb run, before any check runs", async () => {
    const marker = "import pathlib\npathlib.Path('ran.txt').write_text('x')";
    const project = makeProject({
      "eval_checks/ok.yaml": deterministicYaml("ok", marker),
      "eval_checks/bad.yaml": deterministicYaml("ok", marker).replace("id: ok", "id: ../../x"),
    });
    const before = filesUnder(project);
    const result = await runEb(["run", "--cwd", project]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.yaml/);
    expect(filesUnder(project)).toEqual(before);
  });

  it("reports a 50 MB line with its size and the limit, quickly and before any call", async () => {
    server = await echoServer();
    const huge = caseLine("huge", "x".repeat(50 * 1024 * 1024));
    const root = casesProject([caseLine("a", "hi"), huge, caseLine("b", "hi")]);
    const before = filesUnder(root);
    const started = Date.now();
    const result = await evalAt(root, server.baseURL);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cases\.jsonl:2: line is 50 MB; the limit is 10 MB — /);
    expect(result.stderr.length).toBeLessThan(2000);
    expect(server.requests).toEqual([]);
    expect(filesUnder(root)).toEqual(before);
  });

  it("fails a catastrophically backtracking regex grader with a reason; the run goes on", async () => {
    server = await startFaultServer(() => reply(completion(`${"a".repeat(30)}!`)));
    const evil = { type: "regex", name: "evil", pattern: "(a+)+$" };
    const fine = { type: "contains", all: ["aaa"] };
    const root = casesProject([
      caseLine("one", "q1", [evil, fine]),
      caseLine("two", "q2", [evil, fine]),
    ]);
    const started = Date.now();
    // Some graders fail by design: --pass-threshold 0 leaves error samples as the only way to fail.
    const result = await evalAt(root, server.baseURL, [
      "-k",
      "2",
      "--no-cache",
      "--pass-threshold",
      "0",
    ]);
    // Four matches stopped at 1 s each, one after another: the event loop is theirs meanwhile.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result.code, result.stderr).toBe(0);
    const { rows, report } = readRun(path.join(root, OUT));
    expectAllRows(rows, ["one", "two"], 2);
    for (const row of rows) {
      expect(row).toMatchObject({ status: "failed", marks: { evil: false, contains: true } });
      expect(row.reasons?.evil).toMatch(/^regex timed out after \d+ ms/);
    }
    expect(report.stats.errors).toBe(0);
  }, 30_000);
});

describe("NUL characters anywhere in a case", () => {
  it("travel through the call, the graders, the judge, the rows and the reports", async () => {
    server = await startFaultServer((request) => {
      const body = request.json as { model: string };
      if (body.model === "judge-m") return reply(completion('{"score": 1, "reason": "ok\\u0000"}'));
      return reply(completion(`echo: ${lastContent(request)}`));
    });
    const line = JSON.stringify({
      id: "nul",
      stratum: "s\u0000t",
      messages: [
        { role: "system", content: "sys\u0000tem" },
        { role: "user", content: "a\u0000b" },
      ],
      graders: [
        { type: "equals", value: "echo: a\u0000b" },
        { type: "contains", all: ["\u0000"] },
        { type: "absent", any: ["\u0000\u0000"] },
        { type: "regex", pattern: "a\u0000b" },
        { type: "json", name: "not_json" },
        { type: "judge", criteria: ["mentions a\u0000b"] },
      ],
    });
    const root = casesProject([line]);
    const result = await evalAt(root, server.baseURL, [
      "--judge",
      "judge-m",
      "--pass-threshold",
      "0",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const [first] = server.requests;
    expect(first && lastContent(first)).toBe("a\u0000b");
    const { rows } = readRun(path.join(root, OUT));
    expect(rows[0]).toMatchObject({
      status: "failed",
      text: "echo: a\u0000b",
      marks: {
        equals: true,
        contains: true,
        absent: true,
        regex: true,
        not_json: false,
        judge: true,
      },
    });
    const reportMd = readFileSync(path.join(root, OUT, "report.md"), "utf8");
    expect(reportMd.length).toBeGreaterThan(0);
    expect(result.stdout).toContain("0 items passed, 1 failed, 0 errored in");
  });

  it("in a command target's input and output", async () => {
    const echo = [
      "let s = '';",
      "process.stdin.on('data', (d) => (s += d)).on('end', () => {",
      "  const c = JSON.parse(s);",
      "  process.stdout.write('got ' + c.messages[0].content + '\\u0000');",
      "});",
    ].join("\n");
    const root = casesProject(
      [caseLine("nul", "x\u0000y", [{ type: "contains", all: ["x\u0000y"] }])],
      { "echo.cjs": echo },
    );
    const result = await runEb(
      [
        "eval",
        "cases.jsonl",
        "--target",
        `${process.execPath} echo.cjs`,
        "--out",
        OUT,
        "--flat-output",
      ],
      { cwd: root, env: { EVAL_BANANA_API_KEY: KEY } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readRun(path.join(root, OUT)).rows[0]).toMatchObject({
      status: "passed",
      text: "got x\u0000y\u0000",
    });
  });
});

describe("names that are also Object.prototype keys", () => {
  it("a case, stratum or grader called __proto__ or constructor is scored like any other", async () => {
    server = await echoServer();
    const line = (id: string, stratum: string, graders: Grader[]) =>
      JSON.stringify({ id, stratum, messages: [{ role: "user", content: id }], graders });
    const root = casesProject([
      line("__proto__", "__proto__", [{ type: "contains", name: "__proto__", all: ["nope"] }]),
      line("constructor", "toString", [
        { type: "contains", name: "hasOwnProperty", all: ["echo"] },
        { type: "contains", name: "constructor", all: ["zzz"] },
      ]),
      line("ok", "valueOf", [{ type: "contains", name: "toString", all: ["echo"] }]),
    ]);
    const result = await evalAt(root, server.baseURL, ["--pass-threshold", "0"]);
    expect(result.code, result.stderr).toBe(0);
    const { rows, report } = readRun(path.join(root, OUT));
    const status = Object.fromEntries(rows.map((r) => [r.id, r.status]));
    expect(status).toEqual(
      JSON.parse('{"__proto__": "failed", "constructor": "failed", "ok": "passed"}'),
    );
    expect(report.stats).toMatchObject({ items: 3, samples: 3, errors: 0 });
    expect(report.stats.pass_rate).toBeCloseTo(1 / 3);
    const failures = Object.fromEntries(report.summary.graders.map((g) => [g.name, g.failures]));
    expect(failures).toEqual(JSON.parse('{"__proto__": 1, "constructor": 1}'));
    const json = await runEb(["report", path.join(root, OUT), "--json"], { cwd: root });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ items: 3, samples: 3 });
  });
});
