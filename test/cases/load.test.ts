import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCases, MAX_LINE_BYTES, needsJudge } from "../../src/cases/load.js";
import { InputError } from "../../src/errors.js";

const fixtures = join(import.meta.dirname, "../fixtures/cases");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "eb-cases-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function loadError(path: string): Promise<string> {
  const error = await loadCases(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InputError);
  return (error as InputError).message;
}

const line = (obj: object) => JSON.stringify(obj);
const valid = (id: string, extra: object = {}) =>
  line({
    id,
    messages: [{ role: "user", content: "hi" }],
    graders: [{ type: "contains", all: ["hi"] }],
    ...extra,
  });

describe("loadCases", () => {
  it("loads the article's case format", async () => {
    const path = join(fixtures, "article.jsonl");
    const { cases, sha256 } = await loadCases(path);
    expect(sha256).toBe(
      createHash("sha256")
        .update(await readFile(path))
        .digest("hex"),
    );
    expect(cases.map((c) => [c.id, c.stratum, c.line])).toEqual([
      ["refund-001", "should-refuse", 1],
      ["extract-014", "typical", 3],
      ["greet", "none", 4],
    ]);
    expect(cases[0]?.graders.map((g) => g.name)).toEqual(["no_amount", "asks_order_no", "tone"]);
    expect(cases[2]?.graders.map((g) => g.name)).toEqual(["regex", "equals"]);
    expect(cases[0]?.messages[0]).toEqual({
      role: "system",
      content: "You are a support agent...",
    });
    expect(needsJudge(cases)).toBe(true);
    expect(needsJudge(cases.slice(1))).toBe(false);
  });

  it("reports every problem of a file at once, each with file:line and what to do", async () => {
    const path = join(fixtures, "bad.jsonl");
    const message = await loadError(path);
    const lines = message.split("\n");
    expect(lines[0]).toMatch(/^invalid case file .*bad\.jsonl \(\d+ problems\):$/);
    for (const l of lines.slice(1)) expect(l).toMatch(new RegExp(`^${path}:\\d+: .+ — .+`));
    const at = (n: number) => lines.filter((l) => l.startsWith(`${path}:${n}: `)).join("\n");
    expect(at(1)).toBe("");
    expect(at(2)).toMatch(/invalid JSON/);
    expect(at(3)).toMatch(/missing field "messages" — "messages" is a non-empty list/);
    expect(at(4)).toMatch(
      /duplicate id "ok-1" \(first used on line 1\) — give each case a unique id/,
    );
    expect(at(5)).toMatch(
      /unknown grader type "contians" — did you mean "contains"\? Known types: equals, contains, absent, regex, json, judge/,
    );
    expect(at(6)).toMatch(
      /graders\[0\] \(regex\): pattern: invalid regex \(Unterminated group\) — regex takes/,
    );
    expect(at(7)).toMatch(
      /graders\[0\] and graders\[1\] are both named "contains" — give each grader/,
    );
    expect(at(8)).toMatch(/id "..\/escape" contains "\/"/);
    expect(at(9)).toMatch(/unknown field "notes"/);
    expect(at(9)).toMatch(/messages\[0\]\.role: /);
    expect(at(9)).toMatch(/graders\[0\] \(json\): fields\.n: /);
  });

  it("suggests the nearest field of a grader for a misspelt one", async () => {
    const line = {
      id: "a",
      messages: [{ role: "user", content: "q" }],
      graders: [
        { type: "equals", vaule: "42" },
        { type: "script", scirpt: "pass" },
      ],
    };
    const message = await loadError(await file("fields.jsonl", `${JSON.stringify(line)}\n`));
    expect(message).toMatch(
      /graders\[0\] \(equals\): unknown field "vaule" — did you mean "value"\?/,
    );
    expect(message).toMatch(
      /graders\[1\] \(script\): unknown field "scirpt" — did you mean "script"\?/,
    );
  });

  it("lists at most 20 problems and counts the rest", async () => {
    const path = await file("many.jsonl", "{\n".repeat(25));
    const lines = (await loadError(path)).split("\n");
    expect(lines).toHaveLength(22);
    expect(lines.at(-1)).toBe("… and 5 more");
  });

  it("lists the problems of a line with more bad messages than a call takes arguments", async () => {
    const messages = Array(300_000).fill(1);
    const graders = [{ type: "equals", value: "x" }];
    const path = await file("many.jsonl", `${line({ id: "a", messages, graders })}\n`);
    const lines = (await loadError(path)).split("\n");
    expect(lines[0]).toMatch(/many\.jsonl \(300000 problems\):$/);
    expect(lines.at(-1)).toBe("… and 299980 more");
  });

  it("skips blank lines, reads CRLF and a BOM, keeps NUL characters in messages", async () => {
    const nul = line({
      id: "nul",
      messages: [{ role: "user", content: "a\u0000b" }],
      graders: [{ type: "equals", value: "x" }],
    });
    const path = await file("crlf.jsonl", `\uFEFF${valid("a")}\r\n\r\n   \r\n${nul}\r\n`);
    const { cases } = await loadCases(path);
    expect(cases.map((c) => [c.id, c.line])).toEqual([
      ["a", 1],
      ["nul", 4],
    ]);
    expect(cases[1]?.messages[0]?.content).toBe("a\u0000b");
  });

  it("rejects ids that cannot be file names", async () => {
    const ids = [".", "..", "a/b", "a\\b", "a\u0000b"];
    const path = await file("ids.jsonl", ids.map((id) => valid(id)).join("\n"));
    const message = await loadError(path);
    for (const n of [1, 2, 3, 4, 5]) {
      expect(message).toMatch(new RegExp(`${path}:${n}: id .* — rename the case`));
    }
  });

  it("rejects lines that are not objects and ill-typed fields", async () => {
    const path = await file(
      "types.jsonl",
      [
        "[1, 2]",
        valid("n", { id: 7 }),
        valid("s", { stratum: 3 }),
        valid("m", { messages: [] }),
        valid("g", { graders: [{ all: ["x"] }] }),
      ].join("\n"),
    );
    const message = await loadError(path);
    expect(message).toMatch(new RegExp(`${path}:1: the line is an array, not a JSON object`));
    expect(message).toMatch(new RegExp(`${path}:2: id: .*expected string`));
    expect(message).toMatch(new RegExp(`${path}:3: stratum: `));
    expect(message).toMatch(new RegExp(`${path}:4: messages: `));
    expect(message).toMatch(new RegExp(`${path}:5: graders\\[0\\]: missing field "type"`));
  });

  it("explains a missing file and a file without cases", async () => {
    expect(await loadError(join(dir, "nope.jsonl"))).toMatch(
      /cannot read the case file \(ENOENT\)/,
    );
    expect(await loadError(await file("empty.jsonl", "\n\n"))).toMatch(/no cases/);
  });
  it("reports an over-long line with its size and the limit, and goes on with the others", async () => {
    const big = valid("big", { stratum: "x".repeat(MAX_LINE_BYTES + 1024 * 1024) });
    const path = await file("big.jsonl", [valid("a"), big, "{", valid("b")].join("\n"));
    const message = await loadError(path);
    expect(message).toContain(`${path}:2: line is 11 MB; the limit is 10 MB — `);
    expect(message).toMatch(new RegExp(`${path}:3: invalid JSON`));
    expect(message.length).toBeLessThan(2000);
  });

  it("accepts a line just under the limit and a last line without a newline", async () => {
    const pad = MAX_LINE_BYTES - valid("edge", { stratum: "" }).length;
    const edge = valid("edge", { stratum: "y".repeat(pad) });
    expect(Buffer.byteLength(edge)).toBe(MAX_LINE_BYTES);
    const path = await file("edge.jsonl", `${edge}\n${valid("last")}`);
    const { cases } = await loadCases(path);
    expect(cases.map((c) => [c.id, c.line])).toEqual([
      ["edge", 1],
      ["last", 2],
    ]);
  });

  it("hashes the whole file while streaming it", async () => {
    const text = Array.from({ length: 3000 }, (_, i) =>
      valid(`c${i}`, { stratum: "s".repeat(500) }),
    );
    const path = await file("many-cases.jsonl", text.join("\n"));
    const { cases, sha256 } = await loadCases(path);
    expect(cases).toHaveLength(3000);
    expect(cases.at(-1)?.line).toBe(3000);
    expect(sha256).toBe(createHash("sha256").update(text.join("\n")).digest("hex"));
  });

  it("names the line that is not valid UTF-8", async () => {
    const bad = Buffer.concat([
      Buffer.from(`${valid("a")}\n`),
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    ]);
    const path = join(dir, "latin.jsonl");
    await writeFile(path, bad);
    expect(await loadError(path)).toMatch(new RegExp(`${path}:2: the line is not valid UTF-8`));
  });

  it("stops reading a file without newlines once its line is past 256 MB", async () => {
    const started = performance.now();
    const message = await loadError("/dev/zero");
    expect(message).toMatch(/^\/dev\/zero:1: line is over 256 MB; the limit is 10 MB — /m);
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("explains a folder given as the case file", async () => {
    expect(await loadError(dir)).toMatch(/cannot read the case file \(EISDIR\)/);
  });
});
