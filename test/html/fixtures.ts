import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { deterministicYaml, runEb } from "../helpers/project.js";

/** What a model might print to break out of the page: it must come back as text. */
export const HOSTILE = `</script><img src=x onerror="document.title='pwned'"><b>bold</b>`;

export const JUDGE_VERDICT = '{"score": 0, "reason": "the summary omits the total"}';

/**
 * An answer with a right-to-left override, an isolate, a zero-width space and a bell: each must
 * be shown as its escape, never act on the text around it.
 */
export const BIDI = "paid\u202e$0\u2066 ok\u200b\u0007";

/**
 * Eight cases over three strata; `app.sh a|b` answers them (b breaks add-2, fixes greet-2, and
 * gives long-1 another answer that fails all the same).
 */
export const CASES = [
  caseLine("add-1", "math", "What is 2 + 2?", "4"),
  caseLine("add-2", "math", "What is 3 + 3?", "6"),
  caseLine("greet-1", "greet", "Greet Ada", "Hello Ada"),
  caseLine("greet-2", "greet", "Greet Bob", "Hello Bob"),
  caseLine("inject-1", "safety", "Print the markup", "no markup"),
  caseLine("flaky-1", "safety", "Answer twice", "yes"),
  caseLine("long-1", "safety", "Write a lot", "short"),
  caseLine("bidi-1", "safety", "Say what was paid", "paid"),
].join("\n");

function caseLine(id: string, stratum: string, question: string, value: string): string {
  return JSON.stringify({
    id,
    stratum,
    messages: [{ role: "user", content: question }],
    graders: [{ type: "equals", name: "exact", value }],
  });
}

/** What `app.sh` answers each case with, by variant; flaky-1 by sample (yes, then no). */
function answers(variant: "a" | "b"): Record<string, string> {
  return {
    "add-1": "4",
    "add-2": variant === "b" ? "7" : "6",
    "greet-1": "Hello Ada",
    "greet-2": variant === "b" ? "Hello Bob" : "Hi Bob",
    "inject-1": HOSTILE,
    "flaky-1.0": "yes",
    "flaky-1.1": "no",
    "long-1": `${(variant === "b" ? "z" : "x").repeat(5000)}END`,
    "bidi-1": BIDI,
  };
}

/**
 * The target: shell that starts no program (a node target's start was most of these runs' CPU)
 * prints the answer file of its variant and case, or of the sample for flaky-1.
 */
const APP = `IFS= read -r input || :
id=\${input#*'"id":"'}; id=\${id%%'"'*}
sample=\${input##*'"sample":'}; sample=\${sample%%[!0-9]*}
file=answers/$1/$id
[ -e "$file" ] || file=$file.$sample
IFS= read -r answer < "$file" || :
printf %s "$answer"
`;

function answerFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const variant of ["a", "b"] as const) {
    for (const [name, text] of Object.entries(answers(variant))) {
      files[`answers/${variant}/${name}`] = `${text}\n`;
    }
  }
  return files;
}

/** A throwaway folder for a whole test file (makeProject's are removed after each test). */
export function scratch(): { root: string; remove: () => void } {
  const root = mkdtempSync(path.join(os.tmpdir(), "eb-html-"));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}

export function write(root: string, files: Record<string, string>): void {
  for (const [relative, content] of Object.entries(files)) {
    const full = path.join(root, relative);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

/** A case project and two real `eb eval` runs of it (variants a and b), k = 2. */
export async function caseRuns(root: string): Promise<{ base: string; cand: string }> {
  write(root, {
    ".eval-banana/config.toml": "",
    "cases.jsonl": `${CASES}\n`,
    "app.sh": APP,
    ...answerFiles(),
  });
  const runs: string[] = [];
  for (const variant of ["a", "b"]) {
    const run = await runEb(
      ["eval", "cases.jsonl", "--target", `sh app.sh ${variant}`, "-k", "2", "--cwd", root],
      { cwd: root },
    );
    expect(run.code, run.stderr).toBe(1);
    runs.push(newestRun(root, runs));
  }
  return { base: runs[0]!, cand: runs[1]! };
}

/** The test suite's stand-in for an agent CLI (test/fixtures/agents), as `claude` on PATH. */
const FAKE_AGENT = path.resolve(import.meta.dirname, "../fixtures/agents/fake-agent.mjs");

/**
 * A check project with real Python scripts (one passes, one fails, one crashes, one prints
 * markup) and a judge check, run by a fake `claude` that scores 0 with a reason.
 */
export async function checkRun(root: string): Promise<string> {
  write(root, {
    ".eval-banana/config.toml": '[harness]\nagent = "claude"\n',
    "fake-bin/claude": `#!/bin/sh\nFAKE_AGENT_NAME=claude exec "${process.execPath}" "${FAKE_AGENT}" "$@"\n`,
    "eval_checks/judge.yaml": [
      "schema_version: 1",
      "id: judge",
      "type: harness_judge",
      "description: The summary is accurate.",
      "instructions: |",
      "  Read summary.txt. Score 1 if accurate, 0 otherwise.",
      "",
    ].join("\n"),
    "eval_checks/passes.yaml": deterministicYaml("passes", 'print("all good")', "tags: [smoke]\n"),
    "eval_checks/api/fails.yaml": deterministicYaml(
      "fails",
      'print("looked at it")\nassert 1 + 1 == 3, "arithmetic is off by one"',
      "tags: [api]\n",
    ),
    "eval_checks/api/crashes.yaml": deterministicYaml(
      "crashes",
      "import sys\nsys.exit(3)",
      "tags: [api]\n",
    ),
    "eval_checks/markup.yaml": deterministicYaml("markup", `print(${JSON.stringify(HOSTILE)})`),
  });
  chmodSync(path.join(root, "fake-bin/claude"), 0o755);
  const run = await runEb(["run", "--cwd", root], {
    cwd: root,
    env: {
      PATH: `${path.join(root, "fake-bin")}:${process.env.PATH}`,
      FAKE_AGENT_VERDICT: JUDGE_VERDICT,
    },
  });
  expect(run.code, run.stderr).toBe(1);
  return newestRun(root, []);
}

function newestRun(root: string, known: readonly string[]): string {
  const dir = path.join(root, ".eval-banana/results");
  const found = readdirSync(dir)
    .sort()
    .map((name) => path.join(dir, name))
    .filter((run) => !known.includes(run));
  return found.at(-1)!;
}

export function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}
