import { runProcess } from "../process/run.js";

/** The commit checked out in the project under test, for the run manifest; null outside git. */
export async function gitCommit(projectRoot: string): Promise<string | null> {
  const result = await runProcess({
    command: "git",
    args: ["rev-parse", "HEAD"],
    cwd: projectRoot,
    timeoutMs: 5000,
  });
  const sha = result.stdout.trim();
  return result.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(sha) ? sha : null;
}
