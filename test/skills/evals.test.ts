import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadEvalFile, loadSkillEvals } from "../../src/skills/evals.js";
import { runEb } from "../helpers/project.js";

/** A skill folder with these files (paths relative to it). */
function skill(files: Record<string, unknown>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), "eb-skill-"));
  writeFileSync(path.join(root, "SKILL.md"), "---\nname: demo\ndescription: d\n---\n");
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(
      path.join(root, name),
      typeof content === "string" ? content : JSON.stringify(content),
    );
  }
  return root;
}

describe("skill eval files", () => {
  it("reads skill-creator's layout: skill_name, evals with ids, files and expectations", async () => {
    const root = skill({
      "evals/files/in.csv": "a,b\n",
      "evals/evals.json": {
        skill_name: "demo",
        evals: [
          {
            id: 1,
            prompt: "Sum column b",
            expected_output: "The sum",
            files: ["evals/files/in.csv"],
            expectations: ["The output includes 3", "The skill used script sum.py"],
          },
        ],
      },
    });
    const [file] = await loadSkillEvals(root);
    expect(file).toMatchObject({ skillName: "demo", triggers: [] });
    expect(file!.evals).toEqual([
      {
        id: "1",
        prompt: "Sum column b",
        expectedOutput: "The sum",
        files: [path.join(root, "evals/files/in.csv")],
        expectations: ["The output includes 3", "The skill used script sum.py"],
      },
    ]);
  });

  it("reads the variants real files use", async () => {
    const root = skill({
      "files/a.txt": "x",
      "evals/b.txt": "y",
      "evals/evals.json": [
        // A top-level list; string, 0-based and gapped ids in any order; assertions; objects.
        { id: "second", prompt: "p1", assertions: [{ text: "t1" }, { id: 7, text: "t2" }] },
        { id: 0, prompt: "p2", expectations: "a single string", extra: { ignored: true } },
        {
          id: 5,
          prompt: "p3",
          expectations: [{ name: "n", description: "d" }],
          files: [{ path: "files/a.txt" }, "b.txt"],
        },
        { prompt: "p4" },
      ],
    });
    const [file] = await loadSkillEvals(root);
    expect(file!.evals.map((e) => [e.id, e.expectations])).toEqual([
      ["second", ["t1", "t2"]],
      ["0", ["a single string"]],
      ["5", ["n: d"]],
      ["3", []],
    ]);
    // files relative to the skill root, or to its evals/ folder.
    expect(file!.evals[2]!.files).toEqual([
      path.join(root, "files/a.txt"),
      path.join(root, "evals/b.txt"),
    ]);
    for (const key of ["cases", "test_cases"]) {
      const other = skill({ "evals/evals.json": { [key]: [{ id: 1, prompt: "p" }] } });
      expect((await loadSkillEvals(other))[0]!.evals).toHaveLength(1);
    }
  });

  it("loads trigger sets as trigger evals, as a list or under queries", async () => {
    const root = skill({
      "evals/evals.json": { evals: [{ id: 1, prompt: "p" }] },
      "evals/triggers.json": [
        { query: "sum this csv", should_trigger: true },
        { query: "what is the weather", should_trigger: false },
      ],
    });
    const files = await loadSkillEvals(root);
    expect(files.map((f) => [path.basename(f.file), f.evals.length, f.triggers.length])).toEqual([
      ["evals.json", 1, 0],
      ["triggers.json", 0, 2],
    ]);
    const queries = skill({ "q.json": { queries: [{ query: "q", should_trigger: true }] } });
    const one = await loadEvalFile(path.join(queries, "q.json"), queries);
    expect(one.triggers).toEqual([{ id: "0", query: "q", shouldTrigger: true }]);
  });

  it("refuses what it cannot read, naming the file and the field", async () => {
    const refusals: [unknown, RegExp][] = [
      [{ evals: [{ id: 1 }] }, /evals\[0\]: missing field "prompt"/],
      [
        { evals: [{ id: 1, prompt: "p", files: ["nope.txt"] }] },
        /evals\[0\]\.files\[0\]: nope\.txt not found/,
      ],
      [{ evals: [{ id: 1, prompt: "p", expectations: [3] }] }, /evals\[0\]: expectations/],
      [
        {
          evals: [
            { id: 1, prompt: "p" },
            { id: "1", prompt: "q" },
          ],
        },
        /two evals have the id 1/,
      ],
      [{ tests: [] }, /no list of evals — expected "evals"/],
      [{ evals: [] }, /evals: no evals in it/],
      ["{not json", /not JSON/],
    ];
    for (const [content, message] of refusals) {
      const root = skill({ "evals/evals.json": content });
      const error = await loadSkillEvals(root).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toContain(path.join(root, "evals/evals.json"));
      expect((error as Error).message).toMatch(message);
    }
    const empty = skill({});
    await expect(loadSkillEvals(empty)).rejects.toThrow(/no evals\/\*\.json in this skill folder/);
  });
});

describe("the shipped skills' own evals", () => {
  const SKILLS = path.resolve(import.meta.dirname, "../../skills");
  for (const name of ["eval-banana", "gemini-media-use", "voxtral-transcribe"]) {
    it(`${name}: evals/*.json read, every eval with expectations, named for its skill`, async () => {
      const files = await loadSkillEvals(path.join(SKILLS, name));
      const evals = files.flatMap((file) => file.evals);
      expect(evals.length).toBeGreaterThan(0);
      for (const e of evals) expect(e.expectations.length).toBeGreaterThan(0);
      expect(files.find((file) => file.evals.length > 0)?.skillName).toBe(name);
    });
  }
});

describe("eb skill validate", () => {
  it("prints what each eval file holds; exit 2 names the file and the field it cannot read", async () => {
    const good = skill({
      "evals/evals.json": {
        skill_name: "demo",
        evals: [
          { id: 1, prompt: "p" },
          { id: 2, prompt: "q" },
        ],
      },
      "evals/triggers.json": { queries: [{ query: "q", should_trigger: false }] },
    });
    const ok = await runEb(["skill", "validate", good], { cwd: good });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toBe(
      "evals/evals.json: 2 evals (skill demo)\nevals/triggers.json: 1 trigger query\n",
    );
    const bad = skill({ "evals/evals.json": { evals: [{ id: 1, prompt: "p", files: [{}] }] } });
    const refused = await runEb(["skill", "validate", path.join(bad, "evals/evals.json")]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${path.join(bad, "evals/evals.json")}: evals[0]: files`);
  });
});
