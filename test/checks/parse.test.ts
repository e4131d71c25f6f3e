import { describe, expect, it } from "vitest";
import { parseCheck } from "../../src/checks/parse.js";
import type { Check } from "../../src/checks/types.js";
import { InputError } from "../../src/errors.js";
import { cpuClock } from "../helpers/cpu-clock.js";

const PATH = "/proj/eval_checks/sub dir/check.yaml";

const DET = "schema_version: 1\nid: det\ntype: deterministic\ndescription: A check.\n";
const JUDGE =
  "schema_version: 1\nid: judge\ntype: harness_judge\ndescription: A judge.\ninstructions: Read README.md.\n";

function parse(text: string | Uint8Array): Check {
  return parseCheck(PATH, typeof text === "string" ? Buffer.from(text, "utf8") : text);
}

/** The InputError message from parsing `text`; fails if it parses or throws anything else. */
function parseError(text: string | Uint8Array): string {
  let caught: unknown = null;
  try {
    parse(text);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(InputError);
  const message = (caught as InputError).message;
  expect(message).toContain(PATH);
  return message;
}

function escapeRegExp(text: string): string {
  return text.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("valid checks", () => {
  it("deterministic with an inline script", () => {
    const bytes = Buffer.from(`${DET}tags: [smoke, fast]\nscript: |\n  print("hi")\n`);
    const check = parseCheck(PATH, bytes);
    expect(check).toEqual({
      id: "det",
      description: "A check.",
      tags: ["smoke", "fast"],
      sourcePath: PATH,
      line: 2,
      yamlBytes: bytes,
      type: "deterministic",
      script: 'print("hi")\n',
      scriptLine: 7,
      scriptPath: null,
      scriptPlace: { firstLine: 7, folded: false },
      targetPaths: null,
      warnings: [],
    });
  });

  it("knows the YAML line of an inline script's first line when the lines map one to one", () => {
    const line = (script: string) => {
      const check = parse(`${DET}script: ${script}\n`);
      return check.type === "deterministic" ? check.scriptLine : undefined;
    };
    expect(line("|\n\n  x = 1\n  assert x")).toBe(6);
    expect(line("|-2\n    x = 1")).toBe(6);
    expect(line("assert False")).toBe(5);
    expect(line('"assert False"')).toBe(5);
    // Folded or escaped lines are not the file's lines: no line to point at.
    expect(line(">\n  x = 1\n  assert x")).toBeNull();
    expect(line("x = 1\n  assert x")).toBeNull();
    expect(line('"x = 1\\nassert x"')).toBeNull();
  });

  it("knows the file line of an inline script's first line, and whether YAML folded it", () => {
    const place = (text: string) => {
      const check = parse(`${DET}${text}`);
      return check.type === "deterministic" ? check.scriptPlace : null;
    };
    expect(place("script: |\n  a = 1\n  b = 2\n")).toEqual({ firstLine: 6, folded: false });
    expect(place("script: >\n  a = 1\n  b = 2\n")).toEqual({ firstLine: 6, folded: true });
    expect(place("script: >\n  a = 1\n")).toEqual({ firstLine: 6, folded: false });
    expect(place("script:\n  a = 1\n  b = 2\n")).toEqual({ firstLine: 6, folded: true });
    expect(place('script: "a = 1"\n')).toEqual({ firstLine: 5, folded: false });
    expect(place("script_path: x.py\n")).toEqual({ firstLine: 5, folded: false });
  });

  it("deterministic with script_path", () => {
    const check = parse(`${DET}script_path: scripts/check.py\n`);
    expect(check.type).toBe("deterministic");
    if (check.type !== "deterministic") return;
    expect(check.script).toBeNull();
    expect(check.scriptPath).toBe("scripts/check.py");
    expect(check.tags).toEqual([]);
  });

  it("harness_judge without a model", () => {
    const check = parse(JUDGE);
    expect(check).toMatchObject({
      id: "judge",
      type: "harness_judge",
      description: "A judge.",
      instructions: "Read README.md.",
      model: null,
      tags: [],
    });
  });

  it("harness_judge with a model", () => {
    const check = parse(`${JUDGE}model: gpt-5\n`);
    expect(check).toMatchObject({ type: "harness_judge", model: "gpt-5" });
  });

  it("keeps the exact bytes that were parsed", () => {
    const bytes = Buffer.from(`${JUDGE}# trailing comment  \r\n`);
    expect(Buffer.from(parseCheck(PATH, bytes).yamlBytes).equals(bytes)).toBe(true);
  });

  it("trims id, description and instructions", () => {
    const check = parse(
      'schema_version: 1\nid: "  spaced_id  "\ntype: harness_judge\ndescription: "  d  "\ninstructions: "  i  "\n',
    );
    expect(check).toMatchObject({ id: "spaced_id", description: "d", instructions: "i" });
  });

  it('script: "" together with script_path uses script_path', () => {
    const check = parse(`${DET}script: ""\nscript_path: run.py\n`);
    expect(check).toMatchObject({ type: "deterministic", script: null, scriptPath: "run.py" });
  });

  it("tags may be empty strings or repeat", () => {
    expect(parse(`${DET}tags: ["", a, a]\nscript: x\n`).tags).toEqual(["", "a", "a"]);
  });
});

describe("schema_version", () => {
  it("missing is rejected", () => {
    const message = parseError(`${DET.replace("schema_version: 1\n", "")}script: x\n`);
    expect(message).toContain("schema_version");
  });

  it.each([
    ['"1"', "a string"],
    ["2", "two"],
    ["0", "zero"],
  ])("%s (%s) is rejected", (value) => {
    const message = parseError(
      `${DET.replace("schema_version: 1", `schema_version: ${value}`)}script: x\n`,
    );
    expect(message).toContain("schema_version must be 1");
  });

  it("a present but wrong value is not reported as missing", () => {
    const message = parseError(
      `${DET.replace("schema_version: 1", "schema_version: 2")}script: x\n`,
    );
    expect(message).not.toContain("missing");
  });
});

describe("id", () => {
  it.each([
    ['"   "', "id must be non-empty"],
    ['""', "id must be non-empty"],
    ["bad id", "id must match"],
    ["a/b", "id must match"],
    ["a.b", "id must match"],
    ["héllo", "id must match"],
  ])("%s → %s", (value, phrase) => {
    const message = parseError(`${DET.replace("id: det", `id: ${value}`)}script: x\n`);
    expect(message).toContain(phrase);
  });

  it.each(["123", "1.5", "[a]", "{a: 1}", "true", "null"])(
    "non-string id %s is rejected",
    (value) => {
      const message = parseError(`${DET.replace("id: det", `id: ${value}`)}script: x\n`);
      expect(message).toContain("id");
    },
  );

  it("missing id is rejected", () => {
    const message = parseError(`${DET.replace("id: det\n", "")}script: x\n`);
    expect(message).toContain("id");
  });

  it("the error points at the id line", () => {
    const message = parseError(`${DET.replace("id: det", "id: bad id")}script: x\n`);
    expect(message).toMatch(new RegExp(`${escapeRegExp(PATH)}:2:\\d+`));
    expect(message).not.toContain("missing");
  });
});

describe("description and tags", () => {
  it("description empty after trim is rejected", () => {
    const message = parseError(
      `${DET.replace("description: A check.", 'description: "   "')}script: x\n`,
    );
    expect(message).toContain("description must be non-empty");
  });

  it("missing description is rejected", () => {
    const message = parseError(`${DET.replace("description: A check.\n", "")}script: x\n`);
    expect(message).toContain("description");
  });

  it.each(["smoke", "{a: 1}", "[1, 2]", "[a, [b]]"])("tags: %s is rejected", (value) => {
    const message = parseError(`${DET}tags: ${value}\nscript: x\n`);
    expect(message).toContain("tags");
  });
});

describe("unknown and type-specific fields", () => {
  it("an unknown field is named", () => {
    const message = parseError(`${DET}foo: 1\nscript: x\n`);
    expect(message).toContain("foo");
    expect(message).toMatch(new RegExp(`${escapeRegExp(PATH)}:5:1`));
  });

  it.each([
    ["deterministic", `${DET}target_paths: [README.md, " src/ "]\nscript: x\n`, 5],
    ["harness_judge", `${JUDGE}target_paths: [README.md, " src/ "]\n`, 6],
  ])("Eval Banana 0.2's target_paths on a %s check loads, with a warning", (_type, text, line) => {
    const check = parse(text);
    // Kept as written, as 0.2 kept them.
    expect(check.targetPaths).toEqual(["README.md", " src/ "]);
    expect(check.warnings).toEqual([
      `${PATH}:${line}: target_paths is deprecated (Eval Banana 0.2): name the files in instructions ` +
        '(judges) or find them from ctx["project_root"] (scripts); it still works',
    ]);
  });

  it("an empty target_paths loads (0.2 allowed it on scripts) and still warns", () => {
    const check = parse(`${DET}target_paths: []\nscript: x\n`);
    expect(check.targetPaths).toEqual([]);
    expect(check.warnings).toHaveLength(1);
  });

  it("a check without target_paths has none and no warning", () => {
    const check = parse(JUDGE);
    expect(check.targetPaths).toBeNull();
    expect(check.warnings).toEqual([]);
  });

  it.each([
    ["a string", "target_paths: README.md", ":5:15", "target_paths must be a list of strings"],
    ["null", "target_paths:", ":5:14", "target_paths must be a list of strings"],
    ["a mapping", "target_paths: {a: 1}", ":5:15", "target_paths must be a list of strings"],
    ["a blank entry", 'target_paths: [a, "  "]', ":5:19", "entries must be non-empty strings"],
    ["a number entry", "target_paths: [a, 1]", ":5:19", "target_paths entries must be strings"],
    ["a nested list", "target_paths: [[a]]", ":5:16", "target_paths entries must be strings"],
  ])("target_paths as %s is an error at its position", (_label, line, where, expected) => {
    const message = parseError(`${DET}${line}\nscript: x\n`);
    expect(message).toContain(`${PATH}${where}: `);
    expect(message).toContain(expected);
  });

  it("per-check timeout_seconds is rejected", () => {
    const message = parseError(`${DET}timeout_seconds: 30\nscript: x\n`);
    expect(message).toContain("unknown field 'timeout_seconds'");
    expect(message).toContain("[core] check_timeout_seconds");
  });

  it("timeout_seconds on a judge is rejected", () => {
    expect(parseError(`${JUDGE}timeout_seconds: 30\n`)).toContain("timeout_seconds");
  });

  it("model on a deterministic check is rejected", () => {
    expect(parseError(`${DET}model: gpt\nscript: x\n`)).toContain("model");
  });

  it("instructions on a deterministic check is rejected", () => {
    expect(parseError(`${DET}instructions: hi\nscript: x\n`)).toContain("instructions");
  });

  it("script on a judge is rejected", () => {
    expect(parseError(`${JUDGE}script: print(1)\n`)).toContain("script");
  });

  it("script_path on a judge is rejected", () => {
    expect(parseError(`${JUDGE}script_path: a.py\n`)).toContain("script_path");
  });
});

describe("deterministic script fields", () => {
  it("both script and script_path is rejected", () => {
    const message = parseError(`${DET}script: x\nscript_path: a.py\n`);
    expect(message).toContain("exactly one of script or script_path must be set");
  });

  it("neither is rejected", () => {
    expect(parseError(DET)).toContain("exactly one of script or script_path must be set");
  });

  it("script_path empty and no script is rejected", () => {
    expect(parseError(`${DET}script_path: ""\n`)).toContain(
      "exactly one of script or script_path must be set",
    );
  });

  it("a non-string script is rejected", () => {
    expect(parseError(`${DET}script: [a]\n`)).toContain("script");
  });
});

describe("harness_judge fields", () => {
  it("missing instructions is rejected", () => {
    expect(parseError(JUDGE.replace("instructions: Read README.md.\n", ""))).toContain(
      "instructions",
    );
  });

  it("blank instructions is rejected", () => {
    expect(parseError(JUDGE.replace("Read README.md.", '"  "'))).toContain(
      "instructions must be non-empty",
    );
  });
});

describe("type", () => {
  it("llm_judge gives the migration message", () => {
    const message = parseError(JUDGE.replace("harness_judge", "llm_judge"));
    expect(message).toContain("Check type 'llm_judge' was renamed to 'harness_judge'");
    expect(message).toContain("Update the 'type' field in your YAML to 'harness_judge'.");
  });

  it.each(["task_based", "harness", "Deterministic"])("unknown type %s is rejected", (type) => {
    const message = parseError(JUDGE.replace("harness_judge", type));
    expect(message).toContain("type");
    expect(message).toContain("deterministic");
    expect(message).toContain("harness_judge");
  });

  it("missing type is rejected", () => {
    expect(parseError(JUDGE.replace("type: harness_judge\n", ""))).toContain("type");
  });
});

describe("file-level rules", () => {
  it.each([
    ["a list", "- a\n- b\n"],
    ["empty", ""],
    ["only a comment", "# nothing\n"],
    ["a scalar", "hello\n"],
  ])("%s → top-level YAML must be a mapping", (_label, text) => {
    expect(parseError(text)).toContain("top-level YAML must be a mapping");
  });

  it("malformed YAML names path:line:col of the bad line", () => {
    const message = parseError(`${DET}description: d: e\nscript: x\n`);
    expect(message).toMatch(new RegExp(`${escapeRegExp(PATH)}:5:\\d+`));
  });

  it("tab indentation names path:line:col", () => {
    const message = parseError(`${DET}\tscript: x\n`);
    expect(message).toMatch(new RegExp(`${escapeRegExp(PATH)}:5:\\d+`));
  });

  it("an unterminated flow sequence names path:line:col", () => {
    const message = parseError("schema_version: 1\nid: a\ntags: [a, b\n");
    expect(message).toMatch(new RegExp(`${escapeRegExp(PATH)}:\\d+:\\d+`));
  });

  it("an undefined alias names path:line:col", () => {
    const message = parseError("schema_version: 1\nid: *nope\ntype: deterministic\n");
    expect(message).toMatch(new RegExp(`${escapeRegExp(PATH)}:2:\\d+`));
  });

  it("a duplicate key is an error at its line", () => {
    const message = parseError(`${DET}id: other\nscript: x\n`);
    expect(message).toMatch(new RegExp(`${escapeRegExp(PATH)}:5:\\d+`));
  });

  it("a billion-laughs alias bomb fails fast", () => {
    const lines = [`l0: &l0 [${Array(9).fill('"lol"').join(", ")}]`];
    for (let level = 1; level <= 9; level++) {
      lines.push(
        `l${level}: &l${level} [${Array(9)
          .fill(`*l${level - 1}`)
          .join(", ")}]`,
      );
    }
    const elapsed = cpuClock();
    const message = parseError(`${DET}script: x\n${lines.join("\n")}\n`);
    expect(elapsed()).toBeLessThan(1000);
    expect(message).toContain("Failed to parse YAML");
  });

  it("a few aliases are fine (then rejected only as unknown fields)", () => {
    const message = parseError(`${DET}script: &s x\nfoo: *s\n`);
    expect(message).toContain("foo");
  });

  it("non-UTF-8 bytes are rejected", () => {
    const bytes = Buffer.concat([
      Buffer.from(`${DET}script: "`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"\n'),
    ]);
    const message = parseError(bytes);
    expect(message).toContain("UTF-8");
  });

  it("YAML 1.2 core schema: yes/on/y are strings (PyYAML rejects yes/on; we accept more, never less)", () => {
    expect(parse(`${DET.replace("A check.", "yes")}script: x\n`).description).toBe("yes");
    expect(parse(`${DET.replace("id: det", "id: on")}script: x\n`).id).toBe("on");
    expect(parse(`${DET}tags: [y, n]\nscript: x\n`).tags).toEqual(["y", "n"]);
  });
});
