import { describe, expect, it } from "vitest";
import { deterministicYaml, makeProject, runEb, writeFile } from "../helpers/project.js";

// Passes until a file named "broken" appears in the project.
const FLIP =
  "import json, sys, pathlib\nctx = json.load(open(sys.argv[1]))\nsys.exit(1 if (pathlib.Path(ctx['project_root']) / 'broken').exists() else 0)";

describe("latest, latest~N", () => {
  it("name the newest run folders for eb report and eb compare", async () => {
    const project = makeProject({ "eval_checks/flip.yaml": deterministicYaml("flip", FLIP) });
    expect((await runEb(["run", "--cwd", project])).code).toBe(0);
    writeFile(project, "broken", "");
    expect((await runEb(["run", "--cwd", project])).code).toBe(1);

    const rate = async (run: string) => {
      const result = await runEb(["report", run, "--json", "--cwd", project]);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { pass_rate: number }).pass_rate;
    };
    expect(await rate("latest")).toBe(0);
    expect(await rate("latest~1")).toBe(1);
    const compare = await runEb(["compare", "latest~1", "latest", "--json", "--cwd", project]);
    expect((JSON.parse(compare.stdout) as { delta: number }).delta).toBe(-1);
    expect(compare.code).toBe(1);

    const missing = await runEb(["report", "latest~2", "--cwd", project]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("latest~2: only 2 run folder(s) under");
  });
});
