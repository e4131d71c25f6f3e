import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { CheckReport } from "../../src/checks/report.js";
import { runText } from "../../src/render/run-text.js";
import {
  CommandGuard,
  terminalSafe,
  terminalSafeJson,
  terminalSafeLine,
  terminalSafeStrings,
} from "../../src/report/terminal.js";
import { deterministicYaml, makeProject, runEb } from "../helpers/project.js";

const HOSTILE = "a\u001b[31mb\u0007c\u0000d\u0008e\u007ff\u009bg\u202eh\u2066i\u200fj\rk";

describe("terminalSafe", () => {
  it("shows C0 as control pictures, DEL, C1 and bidi controls as \\u escapes", () => {
    expect(terminalSafe(HOSTILE)).toBe("a␛[31mb␇c␀d␈e␡f\\u009bg\\u202eh\\u2066i\\u200fj␍k");
  });

  it("keeps newlines, tabs, CRLF as a newline, and every printable character", () => {
    const text = "line 1\r\n\tline 2\nété 日本 🍌 \u00a0 \u00ff";
    expect(terminalSafe(text)).toBe("line 1\n\tline 2\nété 日本 🍌 \u00a0 \u00ff");
  });
});

describe("terminalSafeLine", () => {
  it("also shows a newline as ␊: foreign text never starts a line", () => {
    expect(terminalSafeLine("a\n::error::x\r\n\tb")).toBe("a␊::error::x␊\tb");
  });
});

describe("CommandGuard", () => {
  it("escapes a colon that starts a line, after blanks, and ##[ anywhere", () => {
    const guard = new CommandGuard();
    expect(guard.filter("::error::a\n  ::warning::b\r::x\nok: c ##[error]d\n")).toBe(
      "\\u003a:error::a\n  \\u003a:warning::b\r\\u003a:x\nok: c ##\\u005berror]d\n",
    );
  });

  it("sees a line and a ##[ across writes, as they reach the runner", () => {
    const guard = new CommandGuard();
    const writes = ["x\n", " ", ":", ":error::a ", "#", "#", "[e] x", "\n", "\u0085:b\n", "y:z"];
    expect(writes.map((w) => guard.filter(w)).join("")).toBe(
      "x\n \\u003a:error::a ##\\u005be] x\n\u0085\\u003ab\ny:z",
    );
  });

  it("starts a line afresh after eb's own command lines", () => {
    const guard = new CommandGuard();
    expect(guard.filter("half a line")).toBe("half a line");
    guard.lineStart();
    expect(guard.filter("::x")).toBe("\\u003a:x");
  });
});

describe("terminalSafeJson", () => {
  it("escapes what JSON.stringify leaves raw, and parses back to the same value", () => {
    const value = { [`k${HOSTILE}`]: [HOSTILE, 1, null, { nested: HOSTILE }] };
    const json = terminalSafeJson(JSON.stringify(value, null, 2));
    expect(json).not.toMatch(/[\u007f-\u009f\u202e\u2066\u200f]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe("terminalSafeStrings", () => {
  it("makes every string of a value safe, keeps the rest, and leaves the input alone", () => {
    const input = {
      id: HOSTILE,
      n: 1,
      ok: true,
      none: null,
      list: [HOSTILE, 2],
      deep: { s: "\u001b" },
    };
    const copy = structuredClone(input);
    expect(terminalSafeStrings(input)).toEqual({
      id: terminalSafeLine(HOSTILE),
      n: 1,
      ok: true,
      none: null,
      list: [terminalSafeLine(HOSTILE), 2],
      deep: { s: "␛" },
    });
    expect(input).toEqual(copy);
  });

  it("makes eb run's summary safe from what a failing script printed", async () => {
    const script = "import sys\nsys.stderr.write('\\x1b]0;owned\\x07 \\u202eevil')\nsys.exit(1)";
    const project = makeProject({ "eval_checks/x.yaml": deterministicYaml("x", script) });
    await runEb(["run", "--cwd", project, "--output-dir", "out", "--flat-output"]);
    const report = JSON.parse(
      readFileSync(path.join(project, "out", "report.json"), "utf8"),
    ) as CheckReport;
    expect(report.checks[0]?.stderr).toContain("\u001b]0;owned\u0007");
    // Colours are the summary's own (on under CI=true); what matters is what surrounds them.
    const colours = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
    const text = runText(terminalSafeStrings(report)).replace(colours, "");
    expect(text).toContain("- x: failed - ␛]0;owned␇ \\u202eevil");
    for (const raw of ["\u001b]", "\u0007", "\u202e"]) expect(text).not.toContain(raw);
  });
});
