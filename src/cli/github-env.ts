/**
 * What GitHub Actions asks of a step, read from its environment: a file to append the job
 * summary to (GITHUB_STEP_SUMMARY), and whether the log is read for annotations (GITHUB_ACTIONS).
 * Its own module: a run outside GitHub Actions does not load the summary's renderers.
 */
export interface GithubEnv {
  summaryFile: string | null;
  annotate: boolean;
  /** Annotation paths are relative to it (the repository's checkout), else to the project root. */
  workspace: string | null;
}

export function githubEnv(): GithubEnv {
  const env = process.env;
  return {
    summaryFile: env.GITHUB_STEP_SUMMARY || null,
    annotate: env.GITHUB_ACTIONS === "true",
    workspace: env.GITHUB_WORKSPACE || null,
  };
}

/** Whether GitHub Actions asks for a job summary or annotations. */
export function githubAsked(): boolean {
  const github = githubEnv();
  return github.summaryFile !== null || github.annotate;
}
