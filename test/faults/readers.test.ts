import { closeSync, ftruncateSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type CliResult, deterministicYaml, makeProject, runEb } from "../helpers/project.js";
import { runEbCpu } from "./process-support.js";

const MB = 1024 * 1024;

/** A file of `size` bytes that starts with `head` and is a hole after it: no disk, fast to make. */
function sparseFile(file: string, head: string, size: number): string {
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, "w");
  try {
    writeSync(fd, head);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
  return file;
}

function rowsFile(lines: readonly (object | string)[], ending = "\n"): string {
  const text = lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line)));
  const file = path.join(makeProject(), "rows.jsonl");
  writeFileSync(file, `${text.join("\n")}${ending}`);
  return file;
}

/** Exit 2 with one line on stderr that is an error, not a crash with a stack trace. */
function expectOneLineError(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).not.toMatch(/unexpected failure|\n\s+at /);
  expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

const row = (id: unknown, sample: number, extra: object = {}) => ({
  id,
  sample,
  score: 1,
  ...extra,
});

describe("eb report on rows with fields of the wrong type", () => {
  it("warns by field name, line and count, and leaves them out of what they feed", async () => {
    const file = rowsFile([
      row("a", 0, { tags: ["x"], marks: { g: true } }),
      row("b", 0, { tags: null }),
      row("c", 0, { tags: 1 }),
      row("d", 0, { tags: {}, marks: { g: "no" } }),
      row("e", 0, { marks: [false], stratum: 5, cached: "yes" }),
      // 1e999 is Infinity once parsed; JSON.stringify would write it as null.
      '{"id": "f", "sample": 0, "score": 1, "prompt_tokens": -5, "completion_tokens": 1e999, "ms": -1}',
      row("g", 0, { prompt_tokens: 10, completion_tokens: 2, model: "m" }),
    ]);
    const result = await runEb(["report", file, "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ items: 7, samples: 7, pass_rate: 1, cached: 0 });
    expect(json.breakdown).toMatchObject({ by: "tag", groups: [{ name: "x", items: 1 }] });
    expect(json.graders).toEqual([]);
    expect(json.latency).toBeNull();
    expect(json.tokens).toEqual({
      target: [{ model: "m", input: 10, output: 2, cost: null }],
      judge: null,
    });
    const expected = [
      /rows\.jsonl:2: "tags" is null, not a list of strings, in 3 rows \(first here\): left out of the breakdown by tag — /,
      /rows\.jsonl:4: "marks" is \{"g":"no"\}, not an object of true\/false, in 2 rows/,
      /rows\.jsonl:5: "stratum" is 5, not a string, in 1 row /,
      /rows\.jsonl:5: "cached" is "yes", not true or false, in 1 row /,
      /rows\.jsonl:6: "prompt_tokens" is -5, not a whole number ≥ 0 or null, in 1 row .*token counts/,
      /rows\.jsonl:6: "completion_tokens" is Infinity, not a whole number ≥ 0 or null/,
      /rows\.jsonl:6: "ms" is -1, not a number ≥ 0, in 1 row .*latency/,
    ];
    for (const pattern of expected) expect(result.stderr).toMatch(pattern);
    expect(json.warnings).toHaveLength(expected.length);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(expected.length);
  });

  it("eb compare prints the warnings of both runs and still decides", async () => {
    const base = rowsFile([row("a", 0), row("b", 0)]);
    const cand = rowsFile([row("a", 0, { tags: 1 }), row("b", 0)]);
    const result = await runEb(["compare", base, cand, "--inconclusive", "pass"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/rows\.jsonl:1: "tags" is 1, not a list of strings/);
  });
});

describe("eb report refuses rows it cannot count honestly (exit 2, file:line)", () => {
  it("a second row for the same id and sample", async () => {
    const file = rowsFile([row("a", 0), row("a", 1), row("b", 0), row("a", 1)]);
    expectOneLineError(
      await runEb(["report", file]),
      /rows\.jsonl:4: a second row for id "a", sample 1 — /,
    );
    const high = rowsFile([row("a", 40), row("a", 40)]);
    expectOneLineError(
      await runEb(["report", high]),
      /rows\.jsonl:2: a second row for id "a", sample 40/,
    );
  });

  it("the same id as a number and as a string", async () => {
    const file = rowsFile([row(1, 0), row("2", 0), row("1", 1)]);
    expectOneLineError(
      await runEb(["report", file]),
      /rows\.jsonl:3: id "1" is a string here .* — /,
    );
    const numbers = rowsFile([row(1, 0), row(1, 1), row(2, 0)]);
    expect((await runEb(["report", numbers])).code).toBe(0);
  });

  it("a sample that is not a whole number ≥ 0 Node can count exactly", async () => {
    for (const sample of ["1e300", "9007199254740993", "-1", "0.5", '"1"', "null"]) {
      const file = rowsFile([`{"id": "a", "score": 1, "sample": ${sample}}`]);
      expectOneLineError(await runEb(["report", file]), /rows\.jsonl:1: .*"sample" must be/);
    }
  });

  it("a complete last line that is invalid, with or without its newline", async () => {
    const good = row("a", 0);
    for (const ending of ["\n", ""]) {
      const file = rowsFile([good, { id: "b" }], ending);
      expectOneLineError(await runEb(["report", file]), /rows\.jsonl:2: a row needs a "score"/);
    }
    const cut = rowsFile([good, '{"id": "b", "sc'], "");
    const result = await runEb(["report", cut]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/rows\.jsonl:2: .*cut short/);
  });

  it("a row whose manifest field is not an object (it would pass for a manifest line)", async () => {
    const file = rowsFile([row("a", 0), row("b", 0, { manifest: 5 })]);
    expectOneLineError(
      await runEb(["report", file]),
      /rows\.jsonl:2: "manifest" must be an object/,
    );
  });

  it("a rows.jsonl that cannot be read", async () => {
    const run = makeProject();
    mkdirSync(path.join(run, "rows.jsonl"));
    expectOneLineError(await runEb(["report", run]), /rows\.jsonl: cannot read .*\(EISDIR\) — /);
  });

  it("eb compare refuses a baseline with duplicate rows", async () => {
    const base = rowsFile([row("a", 0), row("a", 0)]);
    const cand = rowsFile([row("a", 0)]);
    expectOneLineError(await runEb(["compare", base, cand]), /rows\.jsonl:2: a second row/);
  });
});

describe("huge files are refused before they are read whole", () => {
  it("a rows line over 512 MB, with its line and no crash", async () => {
    const head = `${JSON.stringify(row("a", 0))}\n{"id": "b", "score": 1, "text": "`;
    const file = sparseFile(path.join(makeProject(), "rows.jsonl"), head, 600 * MB);
    const result = await runEbCpu(["report", file]);
    expectOneLineError(result, /rows\.jsonl:2: the line is over 512 MB/);
    expect(result.cpuSeconds).toBeLessThan(10);
    // Its CPU is the check; on a loaded machine reading 600 MB takes longer than 30 s of wall.
  }, 130_000);

  it("a multi-GB check file, and a 600 MB ASCII one that is not 'not UTF-8'", async () => {
    const project = makeProject({ "eval_checks/ok.yaml": deterministicYaml("ok", "pass") });
    const head = "schema_version: 1\nid: big\n";
    sparseFile(path.join(project, "eval_checks/big.yaml"), head, 4 * 1024 * MB);
    expectOneLineError(
      await runEb(["list", "--cwd", project]),
      /big\.yaml: the check file is 4096 MB; the limit is 10 MB — /,
    );
    sparseFile(path.join(project, "eval_checks/big.yaml"), head, 600 * MB);
    const run = await runEb(["run", "--cwd", project, "--check-id", "ok"]);
    expectOneLineError(run, /big\.yaml: the check file is 600 MB; the limit is 10 MB — /);
    expect(run.stderr).not.toContain("UTF-8");
  }, 30_000);
});

const HOSTILE = "\u001b[2J\u001b]0;owned\u0007\u009b31m\u202eevil\r";
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("escape sequences from user content never reach the terminal", () => {
  it("eb list shows them as visible text", async () => {
    // YAML's own escapes: the file itself is plain text.
    const description = '"Check \\e[2J\\e]0;owned\\a\\u009b31m\\u202eevil\\r."';
    const yaml = `schema_version: 1\nid: x\ntype: deterministic\ndescription: ${description}\nscript: pass\n`;
    const result = await runEb(["list", "--cwd", makeProject({ "eval_checks/x.yaml": yaml })]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(RAW_CONTROL);
    expect(result.stdout).toContain("Check ␛[2J␛]0;owned␇\\u009b31m\\u202eevil␍.");
  });

  it("eb report prints them as text, and as JSON escapes that parse back to the original", async () => {
    const file = rowsFile([
      row(`id${HOSTILE}`, 0, { stratum: `s${HOSTILE}`, marks: { [`g${HOSTILE}`]: false } }),
      row(`id${HOSTILE}`, 1, { score: 0 }),
      row("plain", 0, { stratum: "t" }),
    ]);
    const text = await runEb(["report", file]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toMatch(RAW_CONTROL);
    expect(text.stdout).toContain("id␛[2J␛]0;owned␇\\u009b31m\\u202eevil␍ (1/2)");
    const json = await runEb(["report", file, "--json"]);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    const parsed = JSON.parse(json.stdout) as { flaky_items: { id: string }[] };
    expect(parsed.flaky_items[0]?.id).toBe(`id${HOSTILE}`);
  });

  it("eb compare, its warnings and its errors too", async () => {
    const base = rowsFile([row(`a${HOSTILE}`, 0), row("b", 0), row(`gone${HOSTILE}`, 0)]);
    const cand = rowsFile([row(`a${HOSTILE}`, 0, { score: 0 }), row("b", 0)]);
    for (const extra of [[], ["--json"]]) {
      const result = await runEb(["compare", base, cand, ...extra]);
      expect(result.stdout).not.toMatch(RAW_CONTROL);
      expect(result.stderr).not.toMatch(RAW_CONTROL);
      expect(result.stderr).toContain("missing from the candidate: gone␛[2J");
    }
    expect((await runEb(["compare", base, cand])).stdout).toContain("broke 1 item: a␛[2J");
    const twice = rowsFile([row(`a${HOSTILE}`, 0), row(`a${HOSTILE}`, 0)]);
    const error = await runEb(["compare", twice, cand]);
    expect(error.code).toBe(2);
    expect(error.stderr).not.toMatch(RAW_CONTROL);
  });

  it("error messages that quote a case id", async () => {
    const line = JSON.stringify({
      id: `x${HOSTILE}`,
      messages: [{ role: "user", content: "hi" }],
      graders: [{ type: "contains", all: ["hi"] }],
    });
    const root = makeProject({ "cases.jsonl": `${line}\n${line}\n` });
    const result = await runEb(["eval", "cases.jsonl", "--target", "true"], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("duplicate id");
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    expect(result.stderr).toContain("x␛[2J␛]0;owned␇\\u009b31m\\u202eevil␍");
  });
});
