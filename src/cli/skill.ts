import path from "node:path";
import { loadSkillEvals } from "../skills/evals.js";

/**
 * `eb skill validate PATH…`: reads each skill folder's eval files (or each eval file) and says
 * how many evals and trigger queries it found; what it cannot read stops with exit 2.
 */
export async function skillValidateCommand(paths: string[]): Promise<number> {
  for (const given of paths) {
    const files = await loadSkillEvals(given);
    for (const file of files) {
      const evals = file.evals.length;
      const triggers = file.triggers.length;
      const found =
        triggers > 0
          ? `${triggers} trigger ${triggers === 1 ? "query" : "queries"}`
          : `${evals} ${evals === 1 ? "eval" : "evals"}`;
      const name = file.skillName === null ? "" : ` (skill ${file.skillName})`;
      process.stdout.write(
        `${path.relative(process.cwd(), file.file) || file.file}: ${found}${name}\n`,
      );
    }
  }
  return 0;
}
