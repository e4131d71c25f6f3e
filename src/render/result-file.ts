/** The fence's info string a consumer of the md result file looks for. */
export const RESULT_FENCE_INFO = "eval-banana-result v1";

export type ResultFormat = "md" | "json";

/**
 * The `--result-out` file: json is the object alone; md is the object as JSON in a fenced block
 * a program can find, then the run's report.md (absent when the run stopped before a report),
 * so one file serves the program and the person.
 */
export function resultFileText(
  object: object,
  format: ResultFormat,
  reportMarkdown: string | null,
): string {
  const json = JSON.stringify(object, null, 2);
  if (format === "json") return `${json}\n`;
  return [`\`\`\`${RESULT_FENCE_INFO}`, json, "```", "", reportMarkdown ?? ""].join("\n");
}
